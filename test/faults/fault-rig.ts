// The fault suite's rig: real programs on loopback (an etcd cluster, kube-apiserver, `etcdns
// server` on fixed ports so it can be restarted in place, `etcdns controller` replicas), a
// Service churn through the API server, dnsperf at a steady rate, and the answer checker.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Etcd3, Watcher } from 'etcd3';
import { runDnsperf, type DnsperfResult } from '../../bench/dns/dnsperf.ts';
import {
  controllerKubeconfig,
  startController,
  type ControllerHandle,
} from '../runtime/controller/controller-harness.ts';
import { startEtcdCluster, type EtcdHandle } from '../support/etcd.ts';
import { etcdnsServerArgs } from '../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { freePort } from '../support/ports.ts';
import { startProcess, waitFor, type ManagedProcess } from '../support/process.ts';
import { tempDir } from '../support/temp-dir.ts';
import { nodeBin, tool } from '../support/tools.ts';
import { Checker } from './checker.ts';
import { Churn, ZONE } from './churn.ts';
import { DnsProbe } from './dns-probe.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export const OWNER = 'faults';
/** Entries the controller must never touch: another owner's, and one without owner. */
export const FOREIGN = new Map([
  ['/skydns/org/example/foreign/x1', '{"host":"192.0.2.50","owner":"someone-else"}'],
  ['/skydns/org/example/hand', '{"host":"192.0.2.60"}'],
]);

export interface RigOptions {
  etcdMembers?: number;
  controllers?: number;
  /** Controller 0 reaches the API server through a proxy the test can cut. */
  splitController?: boolean;
  snapshot?: boolean;
  /** Names that never change (checked on every tick, and dnsperf's queries). */
  stable?: number;
  churnRate?: number;
}

export interface EtcdCheck {
  /** Names whose entries in etcd differ from the truth. */
  mismatched: string[];
  /** Foreign entries changed or gone. */
  foreignTouched: string[];
}

export class Rig {
  etcd!: EtcdHandle;
  kube!: KubeHandle;
  kv!: Etcd3;
  server!: ManagedProcess;
  serverPort = 0;
  serverHttpPort = 0;
  controllers: ControllerHandle[] = [];
  proxy: TcpProxy | undefined;
  churn!: Churn;
  checker!: Checker;
  probe!: DnsProbe;
  stable = new Map<string, string>();
  /** etcd puts that wrote the value the key already had (a change applied twice). */
  duplicates = 0;
  private kubeconfig = '';
  private snapshotFile: string | undefined;
  private readonly o: RigOptions;

  constructor(options: RigOptions) {
    this.o = options;
  }

  static async start(options: RigOptions): Promise<Rig> {
    const rig = new Rig(options);
    await rig.init();
    return rig;
  }

  private async init(): Promise<void> {
    [this.etcd, this.kube] = await Promise.all([startEtcdCluster(this.o.etcdMembers ?? 3), startKubeApiserver()]);
    this.kv = this.etcd.client();
    for (const [key, value] of FOREIGN) await this.kv.put(key).value(value);
    this.kubeconfig = await controllerKubeconfig(this.kube);
    this.serverPort = await freePort();
    this.serverHttpPort = await freePort();
    if (this.o.snapshot) this.snapshotFile = join(tempDir('snapshot'), 'records.snapshot');
    await this.startServer(true);
    for (let i = 0; i < (this.o.controllers ?? 1); i++) await this.startController(i);
    this.churn = new Churn(this.kube.admin, { rate: this.o.churnRate ?? 10 });
    this.probe = new DnsProbe(this.serverPort);
    this.stable = await this.churn.createStable(this.o.stable ?? 20);
    this.checker = new Checker(this.probe, this.churn, this.stable);
    await waitFor('stable names answer', async () => {
      for (const [name, address] of this.stable) {
        const a = await this.probe.query(name, 500);
        if (a.addresses.join(',') !== address) return undefined;
      }
      return true;
    });
    this.watchDuplicates();
  }

  /** Starts (or restarts) the DNS server on its ports; `ready` waits for /readyz 200. */
  async startServer(ready: boolean, timeoutMs = 30_000): Promise<number> {
    const started = Date.now();
    const args = etcdnsServerArgs(
      {
        etcdEndpoints: this.etcd.endpoints,
        zones: [ZONE],
        args: this.snapshotFile ? ['--snapshot-file', this.snapshotFile] : [],
      },
      this.serverPort,
      this.serverHttpPort,
    );
    this.server = startProcess('etcdns-server', nodeBin, args);
    if (ready)
      await waitFor(
        'server ready',
        async () => ((await this.serverReadyz()).status === 200 ? true : undefined),
        timeoutMs,
      );
    return Date.now() - started;
  }

  async serverReadyz(): Promise<{ status: number; body: string }> {
    try {
      const res = await fetch(`http://127.0.0.1:${this.serverHttpPort}/readyz`, { signal: AbortSignal.timeout(1000) });
      return { status: res.status, body: await res.text() };
    } catch (e) {
      return { status: 0, body: (e as Error).message };
    }
  }

  async startController(i: number): Promise<ControllerHandle> {
    let kubeconfig = this.kubeconfig;
    if (i === 0 && this.o.splitController) {
      const url = new URL(this.kube.server);
      this.proxy ??= await startTcpProxy({ host: url.hostname, port: Number(url.port) });
      kubeconfig = join(tempDir('split'), 'kubeconfig');
      writeFileSync(
        kubeconfig,
        readFileSync(this.kubeconfig, 'utf8').replaceAll(this.kube.server, `https://127.0.0.1:${this.proxy.port}`),
      );
    }
    const c = await startController({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: this.etcd.endpoints,
      ownerId: OWNER,
      identity: `c${i}`,
      args: ['--domain-filter', ZONE, '--resync-seconds', '5'],
    });
    this.controllers[i] = c;
    return c;
  }

  /** dnsperf over the stable names at `rate` QPS for `seconds` (bounded by -l). */
  load(rate: number, seconds: number, perQuery = false): Promise<DnsperfResult> {
    const file = join(tempDir('queries'), 'queries.txt');
    writeFileSync(file, [...this.stable.keys()].map((n) => `${n} A\n`).join(''));
    return runDnsperf(tool('dnsperf'), {
      port: this.serverPort,
      queryFile: file,
      seconds,
      clients: 4,
      rate,
      outstanding: 200,
      perQuery,
    });
  }

  /** Waits until every change is visible (or the timeout); returns how many are not. */
  async settle(timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.checker.pendingCount() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    return this.checker.pendingCount();
  }

  /** etcd's content against the truth: our entries per name, and the foreign entries untouched. */
  async checkEtcd(): Promise<EtcdCheck> {
    const all = await this.kv.getAll().prefix('/skydns/').strings();
    const ours = new Map<string, string[]>();
    for (const [key, value] of Object.entries(all)) {
      const entry = JSON.parse(value) as { host?: string; owner?: string };
      if (entry.owner !== OWNER) continue;
      const name = key.split('/').slice(2, -1).reverse().join('.');
      ours.set(name, [...(ours.get(name) ?? []), entry.host ?? '']);
    }
    const mismatched: string[] = [];
    for (const name of new Set([...ours.keys(), ...this.churn.history.keys()])) {
      const want = this.churn.current(name);
      const got = ours.get(name)?.sort().join(',');
      if (got !== want) mismatched.push(`${name}: etcd ${got ?? 'none'}, want ${want ?? 'none'}`);
    }
    const foreignTouched = [...FOREIGN].filter(([key, value]) => all[key] !== value).map(([key]) => key);
    return { mismatched, foreignTouched };
  }

  /** After all of etcd's data was lost, re-publishing is not a duplicate. */
  forgetWrites(): void {
    this.lastWritten.clear();
  }

  private readonly lastWritten = new Map<string, string>();
  private watcher: Promise<Watcher | undefined> = Promise.resolve(undefined);

  private watchDuplicates(): void {
    const last = this.lastWritten;
    void this.kv
      .getAll()
      .prefix('/skydns/')
      .strings()
      .then((all) => {
        for (const [k, v] of Object.entries(all)) last.set(k, v);
      });
    this.watcher = this.kv
      .watch()
      .prefix('/skydns/')
      .create()
      .then((w) => {
        w.on('put', (kv) => {
          const key = kv.key.toString();
          const value = kv.value.toString();
          if (last.get(key) === value) this.duplicates++;
          last.set(key, value);
        });
        w.on('delete', (kv) => last.delete(kv.key.toString()));
        w.on('error', () => undefined);
        return w;
      })
      .catch(() => undefined);
  }

  /** Stops everything this rig started (etcd clients too, or they keep the process alive). */
  async stop(): Promise<void> {
    this.probe?.close();
    await this.proxy?.close();
    // A watch left open keeps retrying (and the process alive) after its client is closed.
    await (await this.watcher)?.cancel().catch(() => undefined);
    await Promise.all([...this.controllers.map((c) => c?.stop()), this.server?.stop()]);
    await Promise.all([this.kube?.stop(), this.etcd?.stop()]);
  }
}
