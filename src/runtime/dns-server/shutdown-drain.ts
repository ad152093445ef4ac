// The drain after SIGTERM (config `drain`), while readiness already says no: answer on until the
// Services' EndpointSlices list the pod's address neither as ready nor as serving (why both:
// endpoint-listing.ts), then `drain.seconds` more for kube-proxy (and load balancers) to apply
// it, at most `drain.maxSeconds` in all; without them (outside a pod, no address or namespace
// given, the API refusing or unreachable) `drain.seconds` from SIGTERM. Then, still within the
// maximum, until no query has arrived for `drain.quietSeconds`: what reaches the sockets is the
// one sign a pod has of a proxy that has not followed yet. So a roll depends neither on how fast
// the endpoints move nor on how fast the proxies follow.
import { DRAIN_DEFAULTS, type DrainConfig } from '../../config/server-config.ts';
import { KubeClient } from '../kube/kube-client.ts';
import { loadKubeTarget } from '../kube/kube-target.ts';
import type { Readiness } from '../shared/http-server.ts';
import type { Logger } from '../shared/log.ts';
import { listsAsServing } from './endpoint-listing.ts';
import type { V1EndpointSliceList } from '@kubernetes/client-node';

const POLL_MS = 250;
/** One read's limit: an API behind a blocked network must not eat the whole drain. */
const READ_TIMEOUT_MS = 2000;

/** /readyz from SIGTERM on: the endpoints drop the pod while it still answers. */
export const DRAINING: Readiness = { ready: false, detail: 'terminating: answering until the drain ends' };

export type DrainOutcome = 'none' | 'fixed' | 'endpoints-left' | 'max-reached';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(ms, 0)));

/** Reads whether the Services' EndpointSlices list the pod as ready or serving; undefined when the drain has no API access. */
function endpointReader(
  config: DrainConfig,
  logger: Logger,
): { listed(): Promise<boolean>; close(): void } | undefined {
  const { services, podIp, namespace } = config;
  if (!services?.length || !podIp || !namespace) return undefined;
  let client: KubeClient;
  try {
    client = new KubeClient(loadKubeTarget(config.kubeconfig));
  } catch (e) {
    logger.warn('no Kubernetes API access for the drain', { error: e as Error });
    return undefined;
  }
  const selector = encodeURIComponent(`kubernetes.io/service-name in (${services.join(',')})`);
  const path = `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${selector}`;
  return {
    listed: async () => {
      const res = await client.getText(path, READ_TIMEOUT_MS);
      if (res.status !== 200) throw new Error(`GET EndpointSlices: HTTP ${res.status}: ${res.body.slice(0, 200)}`);
      return listsAsServing((JSON.parse(res.body) as V1EndpointSliceList).items, podIp);
    },
    close: () => client.close(),
  };
}

/**
 * What reached the sockets (a count that only grows) and how late the count may be seen: a pool's
 * workers report theirs once a second.
 */
export interface Arrivals {
  count(): number;
  lagMs: number;
}

/** Notes when the count last moved, from SIGTERM on, so traffic that stopped early costs no wait. */
function watchArrivals(arrivals: Arrivals): { quietForMs(): number; stop(): void } {
  let seen = arrivals.count();
  let movedAt = Date.now();
  const timer = setInterval(() => {
    const now = arrivals.count();
    if (now !== seen) [seen, movedAt] = [now, Date.now()];
  }, POLL_MS);
  return { quietForMs: () => Date.now() - movedAt - arrivals.lagMs, stop: () => clearInterval(timer) };
}

/** Waits until no query arrived for `quietMs`, or the deadline. */
async function untilQuiet(
  watch: ReturnType<typeof watchArrivals>,
  quietMs: number,
  deadline: number,
  logger: Logger,
): Promise<void> {
  if (quietMs === 0 || watch.quietForMs() >= quietMs) return;
  logger.info('queries still arriving, answering until they stop', { quietSeconds: quietMs / 1000 });
  while (watch.quietForMs() < quietMs) {
    if (Date.now() >= deadline) {
      logger.warn('queries still arriving at the drain maximum, closing', { quietForMs: watch.quietForMs() });
      return;
    }
    await sleep(Math.min(POLL_MS, deadline - Date.now()));
  }
  logger.info('no query arrived for the quiet time', { quietSeconds: quietMs / 1000 });
}

/** Waits as the drain says; resolves when the sockets may close. */
export async function drainAfterSignal(
  config: DrainConfig | undefined,
  logger: Logger,
  arrivals: Arrivals,
): Promise<DrainOutcome> {
  if (!config) return 'none';
  const started = Date.now();
  const watch = watchArrivals(arrivals);
  const deadline = started + (config.maxSeconds ?? DRAIN_DEFAULTS.maxSeconds) * 1000;
  try {
    const outcome = await untilEndpointsLeft(config, logger, started, deadline);
    if (outcome !== 'max-reached')
      await untilQuiet(watch, (config.quietSeconds ?? DRAIN_DEFAULTS.quietSeconds) * 1000, deadline, logger);
    return outcome;
  } finally {
    watch.stop();
  }
}

/** The drain's first part: the EndpointSlices and `seconds`, or the fixed time. */
async function untilEndpointsLeft(
  config: DrainConfig,
  logger: Logger,
  started: number,
  deadline: number,
): Promise<DrainOutcome> {
  const margin = (config.seconds ?? DRAIN_DEFAULTS.seconds) * 1000;
  const fixed = async (): Promise<DrainOutcome> => {
    logger.info('draining for a fixed time', { seconds: margin / 1000 });
    await sleep(margin - (Date.now() - started));
    return 'fixed';
  };
  const reader = endpointReader(config, logger);
  if (!reader) return fixed();
  try {
    let listed: boolean;
    try {
      listed = await reader.listed();
    } catch (e) {
      logger.warn('cannot read the EndpointSlices, draining for a fixed time instead', { error: e as Error });
      return await fixed();
    }
    logger.info('draining until the EndpointSlices drop this pod', {
      services: config.services,
      podIp: config.podIp,
      listed,
    });
    while (listed && Date.now() < deadline) {
      await sleep(Math.min(POLL_MS, deadline - Date.now()));
      listed = await reader.listed().catch((e: Error) => {
        logger.debug('EndpointSlices read failed, retrying', { error: e });
        return true;
      });
    }
    if (listed) {
      logger.warn('still listed as ready or serving at the drain maximum, closing', {
        maxSeconds: (deadline - started) / 1000,
      });
      return 'max-reached';
    }
    logger.info('EndpointSlices no longer list this pod as ready, nor as serving', {
      afterMs: Date.now() - started,
      answeringMoreSeconds: margin / 1000,
    });
    await sleep(Math.min(margin, deadline - Date.now()));
    return 'endpoints-left';
  } finally {
    reader.close();
  }
}
