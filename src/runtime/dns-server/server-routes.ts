// The DNS server's status routes on its HTTP port: /status (HTML, searchable with ?q=) and
// /status.json (the summary `etcdns status` reads). On a hub, `?name=NAME` (and `&client=ADDRESS`
// for `prefer`) adds why each member cluster answers that name, or not (name-explanation.ts). With --workers the primary serves HTTP but
// holds no copy: its page shows the workers' readiness, and it has no /status.json.
import { canonicalName, dnsNameProblem } from '../../dns/dns-name.ts';
import type { Readiness, RouteReply } from '../shared/http-server.ts';
import { html } from '../status-page/html.ts';
import type { NameExplanation } from '../status-page/name-explanation-text.ts';
import { serverPage, serverSummary, type ServerStatusSource } from './server-page.ts';
import { STATUS_HEADERS, statusPage } from '../status-page/status-layout.ts';
import { searchTerm } from '../status-page/status-search.ts';

const page = (body: string): RouteReply => ({
  status: 200,
  body,
  type: 'text/html; charset=utf-8',
  headers: STATUS_HEADERS,
});

const problem = (status: number, text: string): RouteReply => ({
  status,
  body: `${text}\n`,
  type: 'text/plain; charset=utf-8',
  headers: STATUS_HEADERS,
});

/** The explanation `?name=` asks for: none, one, or why not (an HTTP error). */
function explanation(source: ServerStatusSource, url: URL): { explain?: NameExplanation } | RouteReply {
  const name = url.searchParams.get('name');
  if (name === null) return {};
  if (!source.explain) return problem(404, 'the name explanation (?name=) is only for hubs (hub: in the config)');
  const why = dnsNameProblem(name);
  if (why) return problem(400, `name ${JSON.stringify(name)} ${why}`);
  const explain = source.explain(canonicalName(name), url.searchParams.get('client') ?? undefined);
  if (!explain) return problem(400, `name ${JSON.stringify(name)} is in none of this server's zones`);
  return { explain };
}

export function serverStatusRoutes(source: ServerStatusSource) {
  return {
    '/status': async (_req: unknown, url: URL) => {
      const e = explanation(source, url);
      if ('status' in e) return e;
      return page(await serverPage(source, searchTerm(url), e.explain));
    },
    '/status.json': (_req: unknown, url: URL): RouteReply => {
      const e = explanation(source, url);
      if ('status' in e) return e;
      return {
        status: 200,
        body: `${JSON.stringify({ ...serverSummary(source), ...e }, null, 2)}\n`,
        type: 'application/json',
        headers: STATUS_HEADERS,
      };
    },
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
