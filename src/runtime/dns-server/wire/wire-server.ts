// The sockets: UDP (one datagram per query, large receive buffer) and TCP (two-byte length
// prefix, several queries per connection answered in order, a bound on connections and an idle
// timeout, both under pressure as tcp-slots.ts says). Everything about the
// content is the query handler's; this file only moves bytes and never lets a client crash it.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import { isIP, isIPv6 } from 'node:net';
import { lookup } from 'node:dns';
import { SERVER_CONFIG_DEFAULTS } from '../../../config/server-config.ts';
import { keepaliveUnits } from './tcp-keepalive.ts';
import { idleTimeoutMs, makeRoom, type TcpSlot } from './tcp-slots.ts';

export type Transport = 'udp' | 'tcp';
/** Several messages only for a zone transfer (TCP). */
export type Reply = Buffer | Buffer[] | undefined;
/**
 * What answers a message: the process's dispatch (dispatch.ts). Over TCP `keepalive` is the
 * connection's idle timeout now, in RFC 7828's units of 100 ms, for a client that asks for it.
 */
export type QueryHandler = (
  msg: Buffer,
  transport: Transport,
  client: string,
  keepalive?: number,
) => Reply | Promise<Reply>;

export interface WireServerOptions {
  host: string;
  port: number;
  handler: QueryHandler;
  /** Close a TCP connection idle for this long (shorter under pressure); default SERVER_CONFIG_DEFAULTS.tcpIdleSeconds. */
  tcpIdleMs?: number;
  /** Open TCP connections at most; default SERVER_CONFIG_DEFAULTS.maxTcpConnections. */
  maxTcpConnections?: number;
  /** Requested UDP receive buffer (the kernel caps it at net.core.rmem_max); default 4 MiB. */
  udpReceiveBuffer?: number;
}

/** TCP connections: open now, and since the start those closed to make room and those refused. */
export interface TcpCounts {
  open: number;
  closedUnderPressure: number;
  refused: number;
}

export interface WireServer {
  udp: Socket;
  tcp: Server;
  /** The receive buffer the kernel granted. */
  udpReceiveBuffer: number;
  tcpCounts(): TcpCounts;
  /** UDP messages and TCP connections received so far: what the proxies still send here (the drain). */
  arrivals(): number;
  close(): Promise<void>;
}

function whenDone(reply: Reply | Promise<Reply>, send: (b: Buffer) => void): void | Promise<void> {
  if (reply instanceof Promise) return reply.then((r) => r && sendAll(r, send));
  if (reply) sendAll(reply, send);
}

/** A zone transfer is several messages (TCP only: the handler never gives UDP more than one). */
function sendAll(reply: Buffer | Buffer[], send: (b: Buffer) => void): void {
  if (Array.isArray(reply)) for (const r of reply) send(r);
  else send(reply);
}

/** One open connection and what the slot rule reads of it. */
interface Connection extends TcpSlot {
  socket: TcpSocket;
  /** The idle timeout the socket has now. */
  idleMs: number;
}

/**
 * The open TCP connections in order of last activity (a Map keeps insertion order: a query or
 * an answer moves its connection to the end), the bound and the idle timeout under pressure.
 */
class TcpConnections {
  readonly byActivity = new Map<TcpSocket, Connection>();
  closedUnderPressure = 0;
  refused = 0;
  /** The server is closing: each connection ends when it has no query in flight. */
  closing = false;
  private readonly max: number;
  private readonly configuredIdleMs: number;

  constructor(max: number, configuredIdleMs: number) {
    this.max = max;
    this.configuredIdleMs = configuredIdleMs;
  }

  /** A new connection: room made by closing the least recently active idle ones, else refused. */
  admit(socket: TcpSocket): Connection | undefined {
    const room = makeRoom(this.byActivity.values(), this.byActivity.size, this.max);
    for (const c of room.close) {
      this.byActivity.delete(c.socket);
      c.socket.destroy();
    }
    this.closedUnderPressure += room.close.length;
    if (!room.admit) {
      this.refused++;
      socket.destroy();
      return undefined;
    }
    const connection: Connection = { socket, inFlight: 0, idleMs: 0 };
    this.byActivity.set(socket, connection);
    socket.on('close', () => this.byActivity.delete(socket));
    this.touch(connection);
    return connection;
  }

  /** Activity on a connection: it becomes the most recent, with the idle timeout of the moment. */
  touch(c: Connection): void {
    if (!this.byActivity.delete(c.socket)) return;
    this.byActivity.set(c.socket, c);
    const idleMs = this.idleMs();
    if (idleMs !== c.idleMs) {
      c.idleMs = idleMs;
      c.socket.setTimeout(idleMs);
    }
  }

  idleMs(): number {
    return idleTimeoutMs(this.byActivity.size, this.max, this.configuredIdleMs);
  }
}

function serveTcpConnection(c: Connection, connections: TcpConnections, handler: QueryHandler): void {
  const { socket } = c;
  let buffered = Buffer.alloc(0);
  // Answers leave in the order the queries came, even when one of them waits on an upstream.
  let queue: Promise<void> = Promise.resolve();
  socket.setNoDelay(true);
  // A connection waiting on an answer is not idle: writing the answer restarts its timer.
  socket.on('timeout', () => c.inFlight === 0 && socket.destroy());
  socket.on('error', () => socket.destroy());
  const send = (reply: Buffer) => {
    if (socket.destroyed) return;
    const prefix = Buffer.allocUnsafe(2);
    prefix.writeUInt16BE(reply.length, 0);
    socket.write(Buffer.concat([prefix, reply]));
  };
  const answered = () => {
    c.inFlight--;
    connections.touch(c);
    // Closing: a connection ends once its last answer is written.
    if (connections.closing && c.inFlight === 0) socket.end();
  };
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const length = buffered.readUInt16BE(0);
      if (buffered.length < 2 + length) break;
      const msg = buffered.subarray(2, 2 + length);
      buffered = buffered.subarray(2 + length);
      c.inFlight++;
      connections.touch(c);
      const reply = handler(msg, 'tcp', socket.remoteAddress ?? '', keepaliveUnits(c.idleMs));
      queue = queue
        .then(() => whenDone(reply, send))
        .catch(() => undefined)
        .then(answered);
    }
  });
}

/** At close, queries in flight on TCP get this long to be answered (a forwarded one waits up to 2 s per upstream). */
const TCP_DRAIN_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

/** Port 0 (tests) gives UDP a free port that TCP may not have free: try a few, then give up. */
const FREE_PORT_ATTEMPTS = 5;

export async function startWireServer(options: WireServerOptions): Promise<WireServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await bindBoth(options);
    } catch (e) {
      const taken = (e as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (options.port !== 0 || !taken || attempt >= FREE_PORT_ATTEMPTS) throw e;
    }
  }
}

async function bindBoth(options: WireServerOptions): Promise<WireServer> {
  const { host, port, handler } = options;
  // Replies go to the address a query came from, always an IP: skip dns.lookup (a regex and a
  // tick per packet). Only a listen address that is a host name is looked up; an IP listen
  // address is also the client's address on loopback, so the test is "a name", not "the host".
  const hostIsName = isIP(host) === 0;
  const udp = createSocket({
    type: isIPv6(host) ? 'udp6' : 'udp4',
    // dgram passes the family as a number (4 or 6), whatever @types/node says.
    lookup: (address, family, callback) => {
      const f = family as unknown as number;
      if (hostIsName && address === host) lookup(address, f, callback);
      else callback(null, address, f);
    },
  });
  udp.on('error', () => undefined);
  let arrivals = 0;
  udp.on('message', (msg, rinfo) => {
    arrivals++;
    const reply = handler(msg, 'udp', rinfo.address);
    // No per-send callback: a failed send surfaces as the socket's 'error', which is ignored. A
    // reply at hand (nearly all) is sent without a closure made for it.
    if (reply instanceof Promise) {
      whenDone(reply, (r) => udp.send(r, rinfo.port, rinfo.address))!.catch(() => undefined);
    } else if (Array.isArray(reply)) {
      for (const r of reply) udp.send(r, rinfo.port, rinfo.address);
    } else if (reply) udp.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind({ address: host, port, exclusive: false }, () => {
      udp.off('error', reject);
      resolve();
    });
  });
  const wanted = options.udpReceiveBuffer ?? 4 * 1024 * 1024;
  try {
    udp.setRecvBufferSize(wanted);
  } catch {
    // Not permitted: keep the kernel's default; /metrics and the start-up log show the size.
  }

  const connections = new TcpConnections(
    options.maxTcpConnections ?? SERVER_CONFIG_DEFAULTS.maxTcpConnections,
    options.tcpIdleMs ?? SERVER_CONFIG_DEFAULTS.tcpIdleSeconds * 1000,
  );
  // No net.Server maxConnections: it would refuse a new client while idle ones hold every slot.
  const tcp = createServer((socket) => {
    arrivals++;
    const connection = connections.admit(socket);
    if (connection) serveTcpConnection(connection, connections, handler);
  });
  tcp.on('error', () => undefined);
  try {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      // Port 0 (tests): TCP takes the port the kernel gave UDP, as DNS needs both on one port.
      tcp.listen(port === 0 ? udp.address().port : port, host, () => {
        tcp.off('error', reject);
        resolve();
      });
    });
  } catch (e) {
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    throw e;
  }

  return {
    udp,
    tcp,
    udpReceiveBuffer: udp.getRecvBufferSize(),
    tcpCounts: () => ({
      open: connections.byActivity.size,
      closedUnderPressure: connections.closedUnderPressure,
      refused: connections.refused,
    }),
    arrivals: () => arrivals,
    close: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      connections.closing = true;
      for (const c of connections.byActivity.values()) if (c.inFlight === 0) c.socket.end();
      const drained = await Promise.race([closed.then(() => true), sleep(TCP_DRAIN_MS).then(() => false)]);
      if (!drained) for (const socket of connections.byActivity.keys()) socket.destroy();
      await closed;
    },
  };
}
