// The three servers under test, each on its own loopback port, serving the same records:
// etcdns and CoreDNS (etcd plugin + `cache 30`) from etcd, Knot from a zone file.
import { etcdCorefile, startCoreDns } from '../../test/support/coredns.ts';
import { startEtcdnsServer } from '../../test/support/etcdns-server.ts';
import { startKnot } from '../../test/support/knot.ts';
import type { ServerName } from './report.ts';
import { zoneFile, type RecordSet } from './record-set.ts';

export interface BenchServer {
  name: ServerName;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export interface ServerContext {
  set: RecordSet;
  etcdEndpoints: string[];
  prefix: string;
  /** Extra flags for `etcdns server`, e.g. ["--workers", "2"]. */
  etcdnsArgs: string[];
}

export async function startBenchServer(name: ServerName, ctx: ServerContext): Promise<BenchServer> {
  const zone = ctx.set.zone;
  switch (name) {
    case 'etcdns': {
      const s = await startEtcdnsServer({
        etcdEndpoints: ctx.etcdEndpoints,
        zones: [zone],
        prefix: ctx.prefix,
        args: ctx.etcdnsArgs,
      });
      return { name, port: s.port, pid: s.process.pid, stop: s.stop };
    }
    case 'coredns': {
      const s = await startCoreDns(
        etcdCorefile({ zones: [zone], endpoints: ctx.etcdEndpoints, prefix: ctx.prefix, cacheSeconds: 30 }),
        zone,
      );
      return { name, port: s.port, pid: s.process.pid, stop: s.stop };
    }
    case 'knot': {
      const s = await startKnot({ zones: [{ name: zone, text: zoneFile(ctx.set) }] });
      return { name, port: s.port, pid: s.process.pid, stop: s.stop };
    }
  }
}
