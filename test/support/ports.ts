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
