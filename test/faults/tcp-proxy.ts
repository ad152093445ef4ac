// A TCP proxy on loopback between one client and a server, which a test can cut: while cut it
// accepts and holds connections but forwards nothing, as a network partition looks to the
// client (no reset, requests hang until their timeouts). Used to split one controller from the
// API server while everything else keeps talking.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let isCut = false;
  const open = new Set<Socket>();
  const server: Server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    if (isCut) return; // held, never forwarded
    const upstream = connect(target.port, target.host);
    open.add(upstream);
    upstream.on('close', () => {
      open.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (b) => !isCut && upstream.write(b));
    upstream.on('data', (b) => !isCut && client.write(b));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('proxy did not listen');
  return {
    port: address.port,
    cut: () => {
      isCut = true;
    },
    // Connections held during the cut are dropped, as their peers would have given up on them.
    restore: () => {
      isCut = false;
      for (const s of open) s.destroy();
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
