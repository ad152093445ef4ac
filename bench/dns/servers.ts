// The servers under test, each on its own loopback port, serving the same records: etcdns and
// CoreDNS (etcd plugin + `cache 30`) from etcd, Knot from a zone file; and the Node floor
// (node-floor.ts), which serves no records at all and only shows what Node costs per query.
import { join } from 'node:path';
import { etcdCorefile, startCoreDns } from '../../test/support/coredns.ts';
import { startEtcdnsServer } from '../../test/support/etcdns-server.ts';
import { startKnot } from '../../test/support/knot.ts';
import { metricSum } from '../../test/support/metrics-text.ts';
import { freePort } from '../../test/support/ports.ts';
import { startProcess, waitFor } from '../../test/support/process.ts';
import { nodeBin, repoRoot } from '../../test/support/tools.ts';
import type { ServerName } from './report.ts';
import { zoneFile, type RecordSet } from './record-set.ts';

export interface BenchServer {
  name: ServerName;
  /** Where its answers come from: only etcd's readers see churn, only a server of records is checked. */
  records: 'etcd' | 'zone file' | 'none';
  port: number;
  pid: number;
  /** Garbage collection pauses so far (an etcdns build's nodejs_gc_duration_seconds); none for the others. */
  gcPauses?: () => Promise<{ count: number; seconds: number }>;
  stop(): Promise<void>;
}

export interface ServerContext {
  set: RecordSet;
  etcdEndpoints: string[];
  prefix: string;
  /** Extra flags for `etcdns server`, e.g. ["--workers", "2"]. */
  etcdnsArgs: string[];
  /** Another checkout's bin/etcdns.js, run as `etcdns-baseline` (before/after in one run). */
  baselineBin?: string | undefined;
}

/**
 * `etcdns-order`: rotation on, and a prefer network holding both dnsperf's address (127.0.0.1)
 * and every record's (10.0.x.x), so each multi-address answer takes the whole path: the client's
 * networks looked up, every record ranked, the records rotated in the copy sent.
 */
const ANSWER_ORDER_ARGS = ['--answer-rotation', 'round-robin', '--answer-prefer', '0.0.0.0/1'];

export async function startBenchServer(name: ServerName, ctx: ServerContext): Promise<BenchServer> {
  const zone = ctx.set.zone;
  switch (name) {
    case 'etcdns':
    case 'etcdns-order':
    case 'etcdns-baseline': {
      if (name === 'etcdns-baseline' && !ctx.baselineBin) throw new Error('etcdns-baseline needs --baseline DIR');
      const s = await startEtcdnsServer({
        etcdEndpoints: ctx.etcdEndpoints,
        zones: [zone],
        prefix: ctx.prefix,
        args: name === 'etcdns-order' ? [...ctx.etcdnsArgs, ...ANSWER_ORDER_ARGS] : ctx.etcdnsArgs,
        ...(name === 'etcdns-baseline' ? { bin: ctx.baselineBin } : {}),
      });
      const gcPauses = async () => {
        const page = (await s.http('/metrics')).body;
        return {
          count: metricSum(page, 'nodejs_gc_duration_seconds_count'),
          seconds: metricSum(page, 'nodejs_gc_duration_seconds_sum'),
        };
      };
      return { name, records: 'etcd', port: s.port, pid: s.process.pid, gcPauses, stop: s.stop };
    }
    case 'coredns': {
      const s = await startCoreDns(
        etcdCorefile({ zones: [zone], endpoints: ctx.etcdEndpoints, prefix: ctx.prefix, cacheSeconds: 30 }),
        zone,
      );
      return { name, records: 'etcd', port: s.port, pid: s.process.pid, stop: s.stop };
    }
    case 'knot': {
      const s = await startKnot({ zones: [{ name: zone, text: zoneFile(ctx.set) }] });
      return { name, records: 'zone file', port: s.port, pid: s.process.pid, stop: s.stop };
    }
    case 'node-floor': {
      const port = await freePort();
      const p = startProcess('node-floor', nodeBin, [join(repoRoot, 'bench', 'dns', 'node-floor.ts'), String(port)]);
      await waitFor('node-floor listening', () => (p.logs().includes('listening') ? true : undefined));
      return { name, records: 'none', port, pid: p.pid, stop: () => p.stop().then(() => undefined) };
    }
  }
}
