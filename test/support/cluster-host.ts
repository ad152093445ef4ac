// The host side of the single-node test cluster (test/support/cluster.ts): the network fence,
// and a record of every piece of host state the cluster changes, so teardown puts it back, also
// after a run that died midway (the record is a file; the next start cleans up after it first).
//
// Network safety: traffic goes only to loopback or into network namespaces the cluster made.
//   - One blackhole route covers the whole range (FENCE): an address in it without a more
//     specific local route is dropped on the host, never sent to the default gateway.
//   - The pod range is the CNI bridge's own subnet (the bridge has GATEWAY, `isGateway`), and the
//     Service and load-balancer ranges route onto the bridge, where kube-proxy's DNAT turns them
//     into pod addresses. Nothing in them is reachable past the bridge.
//   - Pods cannot reach anything beyond the bridge: a mangle FORWARD rule drops what comes from
//     the bridge and would leave through another interface.
//   - assertLocalRoute(address) checks `ip route get` before a test uses an address.
//
// kube-router's firewall (cluster.ts) adds KUBE- chains, removed with kube-proxy's, and ipsets
// (KUBE-SRC-*, KUBE-DST-*): the new ones are destroyed once no rule names them. Its own
// `--cleanup-config` is not used: in v2.1.0 it leaves the firewall alone (it cleans a
// controller that never started) and flushes every IPVS service of the host.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BRIDGE = 'etcdns0';
/** Everything the cluster uses lies in here; a blackhole route covers all of it. */
export const FENCE = '10.213.0.0/16';
export const POD_CIDR = '10.213.0.0/24';
/** The bridge's host address: node IP, pods' gateway, API server and cluster DNS address. */
export const GATEWAY = '10.213.0.1';
/**
 * The bridge's own MAC, set explicitly (0a:58 and the gateway's address, as the CNI bridge plugin
 * derives it). A bridge without one takes the lowest MAC of its ports and changes it when that port
 * goes: a roll that removed the old pod's veth moved the gateway's MAC under the new pod, whose
 * replies to the node went to the old MAC until it asked again (lost first tries in CI). The CNI
 * plugin pins it only on a bridge whose gateway address it set itself; this one is set here.
 */
const BRIDGE_MAC = '0a:58:0a:d5:00:01';
export const SERVICE_CIDR = '10.213.128.0/24';
/** Load-balancer addresses tests set in Service status (kube-proxy programs them). */
export const LB_CIDR = '10.213.200.0/24';
const FENCE_COMMENT = 'etcdns-test-cluster-fence';

/** The sysctls the kubelet and kube-proxy may rewrite; restored at teardown. */
const SYSCTLS = [
  'vm/overcommit_memory',
  'vm/panic_on_oom',
  'kernel/panic',
  'kernel/panic_on_oops',
  'kernel/keys/root_maxkeys',
  'kernel/keys/root_maxbytes',
  'net/ipv4/conf/all/route_localnet',
  'net/ipv4/ip_forward',
  'net/bridge/bridge-nf-call-iptables',
  'net/bridge/bridge-nf-call-ip6tables',
  'net/netfilter/nf_conntrack_max',
  'net/netfilter/nf_conntrack_tcp_timeout_established',
  'net/netfilter/nf_conntrack_tcp_timeout_close_wait',
];
const CGROUP_ROOT = '/sys/fs/cgroup';
const NETNS_DIR = '/run/netns';
const IPTABLES = ['iptables', 'ip6tables'];
/** containerd's shim sockets (/run/containerd/s) and the kubelet's device-plugin socket. */
const HOST_DIRS = ['/run/containerd', '/var/lib/kubelet'];
const CNI_RESULTS = '/var/lib/cni/results';
const TABLES = ['filter', 'nat', 'mangle', 'raw'];
/** kube-router's ipsets (IPv6 ones carry the family prefix). */
const KUBE_IPSET = /^(inet6:)?KUBE-/;
/** Where the record of a running cluster lives (one cluster per machine at a time). */
export const STATE_FILE = '/run/etcdns-test-cluster.json';

/** What the host looked like before, and what the cluster made: enough to undo it. */
export interface HostRecord {
  pid: number;
  dirs: string[];
  sysctls: Record<string, string>;
  cgroups: Record<string, string[]>;
  netns: string[];
  kubeChains: string[];
  /** kube-router's ipsets before (none, unless a run left some): new ones are the cluster's. */
  kubeIpsets: string[];
  /** Host directories the runtime or kubelet create whatever their settings: removed if new. */
  hostDirs: string[];
  /** libcni's result cache (/var/lib/cni/results) before: new entries are the cluster's. */
  cniResults: string[];
  /** Processes the cluster started (killed by PID if still running at cleanup). */
  pids: number[];
  /** The containerd socket: its shims are found by it. */
  containerdAddress?: string;
  kubeProxy?: string;
}

function run(cmd: string, args: string[], allowFail = false): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (allowFail) return '';
    const err = e as { stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')}: ${(err.stderr || err.message).trim()}`, { cause: e });
  }
}

function readSysctl(name: string): string | undefined {
  try {
    return readFileSync(`/proc/sys/${name}`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    return [];
  }
}

function cgroupHierarchies(): string[] {
  return subdirs(CGROUP_ROOT).map((h) => join(CGROUP_ROOT, h));
}

function kubeIpsets(): string[] {
  return run('ipset', ['list', '-n'], true)
    .split('\n')
    .filter((s) => KUBE_IPSET.test(s));
}

function kubeChains(): string[] {
  const chains: string[] = [];
  for (const bin of IPTABLES)
    for (const table of TABLES)
      for (const line of run(bin, ['-w', '-t', table, '-S'], true).split('\n')) {
        const m = /^-N (KUBE-\S+)/.exec(line);
        if (m) chains.push(`${bin} ${table} ${m[1]}`);
      }
  return chains;
}

/** The host before the cluster starts. Refuses when the range is in use on this host. */
export function recordHost(dirs: string[]): HostRecord {
  const routes = run('ip', ['-4', 'route', 'show', 'table', 'all']);
  const addrs = run('ip', ['-4', '-o', 'addr', 'show']);
  if (/\b10\.213\./.test(routes + addrs))
    throw new Error(`${FENCE} is already in use on this host:\n${routes}\n${addrs}`);
  const sysctls: Record<string, string> = {};
  for (const s of SYSCTLS) {
    const v = readSysctl(s);
    if (v !== undefined) sysctls[s] = v;
  }
  const cgroups: Record<string, string[]> = {};
  for (const h of cgroupHierarchies()) cgroups[h] = subdirs(h);
  return {
    pid: process.pid,
    dirs,
    sysctls,
    cgroups,
    netns: existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR) : [],
    kubeChains: kubeChains(),
    kubeIpsets: kubeIpsets(),
    hostDirs: HOST_DIRS.filter((d) => !existsSync(d)),
    cniResults: existsSync(CNI_RESULTS) ? readdirSync(CNI_RESULTS) : [],
    pids: [],
  };
}

export function saveRecord(record: HostRecord): void {
  writeFileSync(STATE_FILE, JSON.stringify(record, null, 2));
}

/** The fence, the bridge with its gateway address, and the routes onto it. */
export function setUpNetwork(): void {
  run('ip', ['route', 'add', 'blackhole', FENCE]);
  run('ip', ['link', 'add', BRIDGE, 'address', BRIDGE_MAC, 'type', 'bridge']);
  run('ip', ['addr', 'add', `${GATEWAY}/24`, 'dev', BRIDGE]);
  run('ip', ['link', 'set', BRIDGE, 'up']);
  run('ip', ['route', 'add', SERVICE_CIDR, 'dev', BRIDGE, 'src', GATEWAY]);
  run('ip', ['route', 'add', LB_CIDR, 'dev', BRIDGE, 'src', GATEWAY]);
  run('iptables', ['-w', '-t', 'mangle', '-I', 'FORWARD', ...fenceRule()]);
  run('ip6tables', ['-w', '-t', 'mangle', '-I', 'FORWARD', ...fenceRule()]);
  for (const address of [GATEWAY, '10.213.0.77', '10.213.128.10', '10.213.200.53']) assertLocalRoute(address);
  assertBlackholed('10.213.99.1');
}

function fenceRule(): string[] {
  return ['-i', BRIDGE, '!', '-o', BRIDGE, '-m', 'comment', '--comment', FENCE_COMMENT, '-j', 'DROP'];
}

/**
 * Throws unless `ip route get address` stays on this host: a local address, or the bridge
 * (pods, and Service/load-balancer addresses kube-proxy rewrites to pods). Never a gateway.
 */
export function assertLocalRoute(address: string): string {
  const route = run('ip', ['-o', 'route', 'get', address]).trim();
  const local = route.startsWith('local ') || / dev lo\b/.test(route);
  const bridge = new RegExp(`^${address.replace(/\./g, '\\.')} dev ${BRIDGE} `).test(route);
  if (/ via /.test(route) || !(local || bridge))
    throw new Error(`refusing ${address}: ip route get says "${route}" (must be local or dev ${BRIDGE})`);
  return route;
}

/** Throws unless the address is dropped by the fence. */
export function assertBlackholed(address: string): void {
  let out: string;
  try {
    out = execFileSync('ip', ['-o', 'route', 'get', address], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    return; // "RTNETLINK answers: Invalid argument": a blackhole route
  }
  if (!/^blackhole /.test(out.trim())) throw new Error(`${address} is not blackholed: ${out}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Processes whose command line names `needle` (the cluster's shims name its socket). */
function processesNaming(needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return pids.filter((p) => p !== process.pid);
}

/** New cgroups since the record, deepest first (children before parents). */
function newCgroups(record: HostRecord): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const d of subdirs(dir)) walk(join(dir, d));
    found.push(dir);
  };
  for (const h of cgroupHierarchies()) {
    const before = new Set(record.cgroups[h] ?? []);
    for (const d of subdirs(h)) if (!before.has(d)) walk(join(h, d));
  }
  return found;
}

function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function mountPoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ')[4]!.replace(/\\040/g, ' '));
}

/**
 * Undoes everything in the record: processes (by PID: the cluster's own, its shims by their
 * socket, and every process in a cgroup it made), mounts under its directories and its network
 * namespaces, the cgroups, iptables chains, the bridge and routes, sysctls, directories.
 * Returns what it had to clean (for the test output), never throws.
 */
export async function cleanHost(record: HostRecord): Promise<string[]> {
  const notes: string[] = [];
  const step = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (e) {
      notes.push(`${what}: ${(e as Error).message}`);
    }
  };
  // 1. Processes: the recorded ones, the shims, then whatever still runs in the cluster's cgroups.
  const targets = new Set(record.pids.filter(alive));
  if (record.containerdAddress) for (const p of processesNaming(record.containerdAddress)) targets.add(p);
  for (const cg of newCgroups(record)) for (const p of cgroupPids(cg)) targets.add(p);
  targets.delete(process.pid);
  if (targets.size) notes.push(`killed ${targets.size} leftover processes`);
  for (const p of targets) kill(p);
  for (let i = 0; i < 50 && [...targets].some(alive); i++) await sleep(100);
  for (let round = 0; round < 20; round++) {
    const left = newCgroups(record).flatMap(cgroupPids);
    if (!left.length) break;
    left.forEach(kill);
    await sleep(100);
  }
  // 2. Mounts under the cluster's directories and its network namespaces, deepest first.
  const before = new Set(record.netns);
  const netns = existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR).filter((n) => !before.has(n)) : [];
  const prefixes = [...record.dirs, ...netns.map((n) => join(NETNS_DIR, n))];
  prefixes.push(...record.hostDirs);
  const mounts = mountPoints()
    .filter((m) => prefixes.some((p) => m === p || m.startsWith(`${p}/`)))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) step(`umount ${m}`, () => run('umount', [m], true) || run('umount', ['-l', m], true));
  for (const n of netns) step(`netns ${n}`, () => run('ip', ['netns', 'delete', n]));
  if (netns.length) notes.push(`deleted ${netns.length} network namespaces`);
  // 3. cgroups the cluster made.
  for (const cg of newCgroups(record))
    step(`rmdir ${cg}`, () => {
      rmdirSync(cg);
    });
  // 4. iptables: kube-proxy's own cleanup, then any KUBE- chain that was not there before (also
  // kube-router's), then kube-router's new ipsets.
  if (record.kubeProxy && existsSync(record.kubeProxy)) run(record.kubeProxy, ['--cleanup'], true);
  const keep = new Set(record.kubeChains);
  for (const bin of IPTABLES)
    for (const table of TABLES) {
      const rules = run(bin, ['-w', '-t', table, '-S'], true).split('\n');
      const ours = rules
        .map((l) => /^-N (KUBE-\S+)/.exec(l)?.[1])
        .filter((c): c is string => !!c && !keep.has(`${bin} ${table} ${c}`));
      const jumps = rules.filter(
        (l) => l.startsWith('-A ') && (ours.some((c) => l.includes(`-j ${c}`)) || l.includes(FENCE_COMMENT)),
      );
      for (const l of jumps)
        step(`${bin} ${l}`, () => run('sh', ['-c', `${bin} -w -t ${table} ${l.replace(/^-A /, '-D ')}`]));
      for (const c of ours) run(bin, ['-w', '-t', table, '-F', c], true);
      for (const c of ours) step(`${bin} -X ${c}`, () => run(bin, ['-w', '-t', table, '-X', c]));
    }
  const ipsetsBefore = new Set(record.kubeIpsets ?? []);
  for (const set of kubeIpsets().filter((s) => !ipsetsBefore.has(s)))
    step(`ipset destroy ${set}`, () => run('ipset', ['destroy', set]));
  // 5. The bridge, the routes, the sysctls.
  if (run('ip', ['-o', 'link', 'show', BRIDGE], true)) step('bridge', () => run('ip', ['link', 'delete', BRIDGE]));
  for (const route of run('ip', ['-4', 'route', 'show', 'table', 'all'], true).split('\n'))
    if (route.includes('10.213.'))
      step(`route ${route}`, () => run('sh', ['-c', `ip route del ${route.replace(/ linkdown/g, '')}`]));
  for (const [name, value] of Object.entries(record.sysctls))
    if (readSysctl(name) !== value)
      step(`sysctl ${name}`, () => {
        writeFileSync(`/proc/sys/${name}`, value);
        notes.push(`restored ${name.replace(/\//g, '.')}=${value}`);
      });
  // 6. Directories.
  for (const d of record.dirs) step(`rm ${d}`, () => rmSync(d, { recursive: true, force: true }));
  for (const d of record.hostDirs) step(`rm ${d}`, () => rmSync(d, { recursive: true, force: true }));
  const results = new Set(record.cniResults);
  if (existsSync(CNI_RESULTS))
    for (const f of readdirSync(CNI_RESULTS))
      if (!results.has(f)) step(`rm ${f}`, () => rmSync(join(CNI_RESULTS, f), { force: true }));
  rmSync(STATE_FILE, { force: true });
  return notes;
}

/** Cleans up after an earlier run that did not (its record is still there and its test runner is gone). */
export async function cleanStaleRun(): Promise<string[]> {
  if (!existsSync(STATE_FILE)) return [];
  const record = JSON.parse(readFileSync(STATE_FILE, 'utf8')) as HostRecord;
  if (record.pid !== process.pid && alive(record.pid) && statSync(`/proc/${record.pid}`).isDirectory())
    throw new Error(`another test cluster is running (test process ${record.pid}, ${STATE_FILE})`);
  return ['cleaned up after an earlier run', ...(await cleanHost(record))];
}
