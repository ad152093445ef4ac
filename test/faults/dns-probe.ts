// A small UDP DNS client for the fault suite's answer checks: many A queries in flight on one
// socket, each with its own ID and timeout, answered with the rcode and the A addresses.
import { createSocket, type Socket } from 'node:dgram';

export type ProbeAnswer = { rcode: string; addresses: string[] } | { rcode: 'TIMEOUT'; addresses: [] };

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

export function encodeQuery(id: number, name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.');
  const qname = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(1, 4); // QDCOUNT
  return Buffer.concat([header, qname, Buffer.from([0, 1, 0, 1])]); // A, IN
}

function skipName(buf: Buffer, at: number): number {
  for (;;) {
    const len = buf[at]!;
    if (len === 0) return at + 1;
    if ((len & 0xc0) === 0xc0) return at + 2;
    at += len + 1;
  }
}

/** The rcode and the A records' addresses of a response. */
export function decodeAnswer(buf: Buffer): { id: number; rcode: string; addresses: string[] } {
  const id = buf.readUInt16BE(0);
  const rcode = RCODES[buf[3]! & 0x0f] ?? `RCODE${buf[3]! & 0x0f}`;
  const qd = buf.readUInt16BE(4);
  const an = buf.readUInt16BE(6);
  let at = 12;
  for (let i = 0; i < qd; i++) at = skipName(buf, at) + 4;
  const addresses: string[] = [];
  for (let i = 0; i < an; i++) {
    at = skipName(buf, at);
    const type = buf.readUInt16BE(at);
    const length = buf.readUInt16BE(at + 8);
    if (type === 1 && length === 4) addresses.push([...buf.subarray(at + 10, at + 14)].join('.'));
    at += 10 + length;
  }
  return { id, rcode, addresses: addresses.sort() };
}

export class DnsProbe {
  private readonly socket: Socket = createSocket('udp4');
  private readonly pending = new Map<number, (a: ProbeAnswer) => void>();
  private nextId = 1;
  private readonly port: number;

  constructor(port: number) {
    this.port = port;
    this.socket.on('message', (msg) => {
      try {
        const { id, rcode, addresses } = decodeAnswer(msg);
        this.pending.get(id)?.({ rcode, addresses });
        this.pending.delete(id);
      } catch {
        // a malformed answer counts as no answer (the query times out)
      }
    });
    this.socket.unref();
  }

  query(name: string, timeoutMs = 2000): Promise<ProbeAnswer> {
    const id = this.nextId;
    this.nextId = (this.nextId % 65535) + 1;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ rcode: 'TIMEOUT', addresses: [] });
      }, timeoutMs);
      this.pending.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.socket.send(encodeQuery(id, name), this.port, '127.0.0.1');
    });
  }

  close(): void {
    this.socket.close();
  }
}
