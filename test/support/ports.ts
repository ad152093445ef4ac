// Free loopback ports for the programs tests start. A port is handed out once per test process,
// and checked free for both TCP and UDP (DNS servers bind both).
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';

const handedOut = new Set<number>();

async function tcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function udpFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, '127.0.0.1', () => socket.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await tcpPort();
    if (!handedOut.has(port) && (await udpFree(port))) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free loopback port found in 50 attempts');
}

async function freeAt(address: string, port: number): Promise<boolean> {
  const tcp = await new Promise<boolean>((resolve, reject) => {
    const server = createServer();
    server.once('error', (e: NodeJS.ErrnoException) =>
      e.code === 'EACCES'
        ? reject(new Error(`binding port ${port} needs root (CAP_NET_BIND_SERVICE)`))
        : resolve(false),
    );
    server.listen(port, address, () => server.close(() => resolve(true)));
  });
  if (!tcp) return false;
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    socket.once('error', () => resolve(false));
    socket.bind(port, address, () => socket.close(() => resolve(true)));
  });
}

/**
 * `count` loopback addresses of one random 127.53.N.0/24 whose `port` is free on each (TCP and
 * UDP): for servers that must share a port on their own addresses, as the name servers of a
 * delegation do (a resolver asks glue addresses on port 53). Binding port 53 needs root.
 */
export async function freeLoopbackAddresses(count: number, port: number): Promise<string[]> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const net = `127.53.${1 + Math.floor(Math.random() * 254)}`;
    const addresses = Array.from({ length: count }, (_, i) => `${net}.${i + 1}`);
    const free = await Promise.all(addresses.map((a) => freeAt(a, port)));
    if (free.every(Boolean)) return addresses;
  }
  throw new Error(`no 127.53.N.0/24 with port ${port} free on ${count} addresses in 20 attempts`);
}
