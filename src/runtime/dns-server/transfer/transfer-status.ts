// What the secondaries last got: per zone and secondary, the serial of the last NOTIFY it
// acknowledged and of the last transfer served to it. Shown in /readyz's detail and as gauges.
import type { TransferMetrics } from './transfer-metrics.ts';

interface Seen {
  serial: number;
  at: Date;
  form?: string;
}

export class TransferStatus {
  private readonly metrics: TransferMetrics;
  private readonly notified = new Map<string, Map<string, Seen>>();
  private readonly served = new Map<string, Map<string, Seen>>();

  constructor(metrics: TransferMetrics) {
    this.metrics = metrics;
  }

  notifyAcked(zone: string, secondary: string, serial: number): void {
    this.note(this.notified, zone, secondary, { serial, at: new Date() });
    this.metrics.notifyAckedSerial.set(serial, { zone, secondary });
  }

  transferred(zone: string, client: string, serial: number, form: string): void {
    this.note(this.served, zone, client, { serial, at: new Date(), form });
    this.metrics.transferSerial.set(serial, { zone, client });
  }

  /** Every zone and secondary: the last acknowledged NOTIFY and the last transfer (the status page). */
  entries(): {
    zone: string;
    secondary: string;
    kind: 'notify-acked' | 'transferred';
    serial: number;
    at: Date;
    form?: string;
  }[] {
    return [
      ...[...this.notified].flatMap(([zone, byWho]) =>
        [...byWho].map(([secondary, s]) => ({ zone, secondary, kind: 'notify-acked' as const, ...s })),
      ),
      ...[...this.served].flatMap(([zone, byWho]) =>
        [...byWho].map(([secondary, s]) => ({ zone, secondary, kind: 'transferred' as const, ...s })),
      ),
    ];
  }

  /** e.g. "example.org.: NOTIFY acked by 192.0.2.53:53 serial 41 at ...; transferred to 192.0.2.53 serial 41 (ixfr) at ...". */
  describe(): string {
    const zones = [...new Set([...this.notified.keys(), ...this.served.keys()])].sort();
    return zones
      .map((zone) => {
        const parts = [
          ...[...(this.notified.get(zone) ?? [])].map(
            ([who, s]) => `NOTIFY acked by ${who} serial ${s.serial} at ${s.at.toISOString()}`,
          ),
          ...[...(this.served.get(zone) ?? [])].map(
            ([who, s]) => `transferred to ${who} serial ${s.serial} (${s.form}) at ${s.at.toISOString()}`,
          ),
        ];
        return `${zone}: ${parts.join(', ')}`;
      })
      .join('; ');
  }

  private note(map: Map<string, Map<string, Seen>>, zone: string, who: string, seen: Seen): void {
    let byWho = map.get(zone);
    if (!byWho) map.set(zone, (byWho = new Map()));
    byWho.set(who, seen);
  }
}
