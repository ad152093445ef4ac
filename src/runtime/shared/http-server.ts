// The HTTP edge every runtime component exposes: /healthz, /readyz (with its reason), /metrics,
// plus any extra routes the component adds (e.g. /debug).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from './metrics.ts';

export interface Readiness {
  ready: boolean;
  /** Human-readable reason, shown in the /readyz body either way. */
  detail: string;
}

export interface HttpOptions {
  listen: string;
  metrics: Registry;
  readiness: () => Readiness;
  routes?: Record<string, (req: IncomingMessage, url: URL) => { status: number; body: string; type?: string }>;
}

/** "host:port" -> [host, port]; "[::1]:80" and ":8080" work too. */
export function parseHostPort(value: string, defaultHost = '0.0.0.0'): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!m) throw new Error(`"${value}" is not host:port`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`"${value}": port out of range`);
  return { host: m[1] ?? (m[2] || defaultHost), port };
}

export async function startHttpServer(options: HttpOptions): Promise<Server> {
  const { host, port } = parseHostPort(options.listen);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (url.pathname === '/healthz') return reply(200, 'ok\n');
    if (url.pathname === '/readyz') {
      const r = options.readiness();
      return reply(r.ready ? 200 : 503, `${r.ready ? 'ready' : 'not ready'}: ${r.detail}\n`);
    }
    if (url.pathname === '/metrics') return reply(200, options.metrics.render(), 'text/plain; version=0.0.4');
    const route = options.routes?.[url.pathname];
    if (route) {
      const r = route(req, url);
      return reply(r.status, r.body, r.type);
    }
    reply(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
