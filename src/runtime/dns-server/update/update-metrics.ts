// UPDATE's Prometheus metric, on the server's registry (server-metrics.ts): every UPDATE by key
// and result (the rcode answered), so refusals can alert (the stack's alert rules).
import type { Registry } from '../../shared/metrics.ts';

/** The key label of an UPDATE that no configured key signed (unsigned, or its TSIG failed). */
export const NO_KEY = '-';

export class UpdateMetrics {
  readonly updates;

  constructor(registry: Registry) {
    this.updates = registry.counter(
      'etcdns_dns_updates_total',
      'DNS UPDATE messages (RFC 2136), by key ("-": unsigned or not verified) and result: the rcode answered (NOERROR: applied; REFUSED: outside the key\'s scope, unsigned, rate-limited or records of another owner; NOTAUTH: TSIG failed or not our zone; YXDOMAIN, YXRRSET, NXDOMAIN, NXRRSET: a prerequisite failed).',
    );
  }
}
