// The DNS server's status routes on its HTTP port: /status (HTML, searchable with ?q=) and
// /status.json (the summary `etcdns status` reads). With --workers the primary serves HTTP but
// holds no copy: its page shows the workers' readiness, and it has no /status.json.
import type { Readiness, RouteReply } from '../shared/http-server.ts';
import { html } from '../status-page/html.ts';
import { serverPage, serverSummary, type ServerStatusSource } from './server-page.ts';
import { STATUS_HEADERS, statusPage } from '../status-page/status-layout.ts';
import { searchTerm } from '../status-page/status-search.ts';

const page = (body: string): RouteReply => ({
  status: 200,
  body,
  type: 'text/html; charset=utf-8',
  headers: STATUS_HEADERS,
});

export function serverStatusRoutes(source: ServerStatusSource) {
  return {
    '/status': async (_req: unknown, url: URL) => page(await serverPage(source, searchTerm(url))),
    '/status.json': (): RouteReply => ({
      status: 200,
      body: `${JSON.stringify(serverSummary(source), null, 2)}\n`,
      type: 'application/json',
      headers: STATUS_HEADERS,
    }),
  };
}

export function poolStatusRoutes(readiness: () => Readiness, workers: number) {
  return {
    '/status': () => {
      const r = readiness();
      return page(
        statusPage({
          title: `etcdns server (${workers} workers)`,
          summary: html`<span class="${r.ready ? 'ok' : 'bad'}">${r.ready ? 'ready' : 'not ready'}</span>: ${r.detail}`,
          query: '',
          searchIn: 'name or address (each worker holds its own copy: not searchable here)',
          body: html`<p class="note">With --workers each worker holds its own copy of the records: \
the search needs one worker per server (--workers 1).</p>\n`,
          now: new Date(),
        }),
      );
    },
  };
}
