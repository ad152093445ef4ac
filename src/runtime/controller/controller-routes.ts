// The controller's status routes on its HTTP port: /status (HTML, searchable with ?q=) and
// /status.json (the summary `etcdns status` reads).
import type { ControllerStatus } from './controller.ts';
import type { RouteReply } from '../shared/http-server.ts';
import { controllerPage, controllerSummary } from './controller-page.ts';
import { STATUS_HEADERS } from '../status-page/status-layout.ts';
import { searchTerm } from '../status-page/status-search.ts';

export function controllerStatusRoutes(
  status: () => ControllerStatus,
  identity: string,
  resyncSeconds: number,
): Record<string, (req: unknown, url: URL) => Promise<RouteReply>> {
  return {
    '/status': async (_req, url) => ({
      status: 200,
      body: await controllerPage(status(), identity, searchTerm(url)),
      type: 'text/html; charset=utf-8',
      headers: STATUS_HEADERS,
    }),
    '/status.json': async () => ({
      status: 200,
      body: `${JSON.stringify(await controllerSummary(status(), identity, resyncSeconds), null, 2)}\n`,
      type: 'application/json',
      headers: STATUS_HEADERS,
    }),
  };
}
