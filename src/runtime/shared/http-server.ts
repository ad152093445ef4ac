// The HTTP edge every runtime component exposes: /healthz, /readyz (with its reason), /metrics,
// plus any extra routes the component adds (e.g. /debug, /status), which may answer later.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { HostPort } from '../../config/field-rules.ts';
import type { Registry } from './metrics.ts';

export interface Readiness {
  ready: boolean;
  /** Human-readable reason, shown in the /readyz body either way. */
  detail: string;
}

export interface RouteReply {
  status: number;
  body: string;
  type?: string;
  headers?: Readonly<Record<string, string>>;
}

export interface HttpOptions {
  listen: HostPort;
  metrics: Registry;
  readiness: () => Readiness;
  routes?: Record<string, (req: IncomingMessage, url: URL) => RouteReply | Promise<RouteReply>>;
}

export async function startHttpServer(options: HttpOptions): Promise<Server> {
  const { host, port } = options.listen;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const reply = (status: number, body: string, type = 'text/plain; charset=utf-8', headers = {}) => {
      res.writeHead(status, { ...headers, 'content-type': type });
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
      void Promise.resolve()
        .then(() => route(req, url))
        .then(
          (r) => reply(r.status, r.body, r.type, r.headers),
          (e: unknown) => reply(500, `error: ${(e as Error).message}\n`),
        );
      return;
    }
    reply(404, 'not found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
