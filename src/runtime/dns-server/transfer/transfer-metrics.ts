// Zone transfer's Prometheus metrics, next to the stage that counts them: transfers served and
// refused, their size, NOTIFYs, and the serial each secondary last got. The server's registry
// holds them (server-metrics.ts).
import type { Registry } from '../../shared/metrics.ts';

export class TransferMetrics {
  readonly transfers;
  readonly transferBytes;
  readonly transferKinds;
  readonly transferSerial;
  readonly notifies;
  readonly notifyAckedSerial;

  constructor(registry: Registry) {
    this.transfers = registry.counter(
      'etcdns_dns_transfers_total',
      'Zone transfer (AXFR, IXFR) requests, by outcome: served, refused (address, unsigned, AXFR over UDP, zone without transfers), notauth (TSIG failed).',
    );
    this.transferBytes = registry.counter(
      'etcdns_dns_transfer_bytes_total',
      'Bytes of zone transfers served, by zone and form (as etcdns_dns_transfers_served_total).',
    );
    this.transferKinds = registry.counter(
      'etcdns_dns_transfers_served_total',
      "Zone transfers served, by zone and form: axfr, ixfr (the changes since the secondary's serial), ixfr_full (IXFR asked, whole zone sent: history compacted or the changes larger than the zone), soa (IXFR from the current serial, or over UDP: the current SOA only).",
    );
    this.transferSerial = registry.gauge(
      'etcdns_dns_transfer_served_serial',
      'The SOA serial last transferred to each secondary, by zone and client address.',
    );
    this.notifies = registry.counter(
      'etcdns_dns_notify_total',
      'NOTIFY messages, by zone, secondary and outcome: sent (each try), acked, refused (an error answer), unanswered (every try timed out).',
    );
    this.notifyAckedSerial = registry.gauge(
      'etcdns_dns_notify_acked_serial',
      'The SOA serial each secondary last acknowledged a NOTIFY of, by zone and secondary.',
    );
  }
}
