// The sockets: UDP (one datagram per query, large receive buffer) and TCP (two-byte length
// prefix, several queries per connection answered in order, idle timeout). Everything about the
// content is the query handler's; this file only moves bytes and never lets a client crash it.
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import { isIP, isIPv6 } from 'node:net';
import { lookup } from 'node:dns';
import { SERVER_CONFIG_DEFAULTS } from '../../../config/server-config.ts';

export type Transport = 'udp' | 'tcp';
/** Several messages only for a zone transfer (TCP). */
export type Reply = Buffer | Buffer[] | undefined;
/** What answers a message: the process's dispatch (dispatch.ts). */
export type QueryHandler = (msg: Buffer, transport: Transport, client: string) => Reply | Promise<Reply>;

export interface WireServerOptions {
  host: string;
  port: number;
  handler: QueryHandler;
  /** Close a TCP connection idle for this long; default SERVER_CONFIG_DEFAULTS.tcpIdleSeconds. */
  tcpIdleMs?: number;
  /** Requested UDP receive buffer (the kernel caps it at net.core.rmem_max); default 4 MiB. */
  udpReceiveBuffer?: number;
  maxTcpConnections?: number;
}

export interface WireServer {
  udp: Socket;
  tcp: Server;
  /** The receive buffer the kernel granted. */
  udpReceiveBuffer: number;
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

function serveTcpConnection(socket: TcpSocket, handler: QueryHandler, idleMs: number): void {
  let buffered = Buffer.alloc(0);
  // Answers leave in the order the queries came, even when one of them waits on an upstream.
  let queue: Promise<void> = Promise.resolve();
  socket.setNoDelay(true);
  socket.setTimeout(idleMs, () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    while (buffered.length >= 2) {
      const length = buffered.readUInt16BE(0);
      if (buffered.length < 2 + length) break;
      const msg = buffered.subarray(2, 2 + length);
      buffered = buffered.subarray(2 + length);
      const send = (reply: Buffer) => {
        if (socket.destroyed) return;
        const prefix = Buffer.allocUnsafe(2);
        prefix.writeUInt16BE(reply.length, 0);
        socket.write(Buffer.concat([prefix, reply]));
      };
      const reply = handler(msg, 'tcp', socket.remoteAddress ?? '');
      queue = queue.then(() => whenDone(reply, send)).catch(() => undefined);
    }
  });
}

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
  udp.on('message', (msg, rinfo) => {
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

  const connections = new Set<TcpSocket>();
  const tcp = createServer((socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serveTcpConnection(socket, handler, options.tcpIdleMs ?? SERVER_CONFIG_DEFAULTS.tcpIdleSeconds * 1000);
  });
  tcp.maxConnections = options.maxTcpConnections ?? 1024;
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
    close: async () => {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      const closed = new Promise<void>((resolve) => tcp.close(() => resolve()));
      for (const socket of connections) socket.destroy();
      await closed;
    },
  };
}
