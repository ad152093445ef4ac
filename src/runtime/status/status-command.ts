// `etcdns status`: one screen on a running stack for a person at a terminal, read through the
// Kubernetes API with their kubeconfig (found as the controller finds its own: --kubeconfig,
// $KUBECONFIG, in-cluster, ~/.kube/config): etcd's members, each DNS server replica, the
// secondaries, the controller and the objects with problems; or, with --explain NAME, why a hub's
// member clusters answer one name or not (name-report.ts). Exit code 1 when something needs a
// person, 0 when nothing does, 2 on a usage or kubeconfig error.
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { dnsNameProblem } from '../../dns/dns-name.ts';
import { ConfigError } from '../../config/config-error.ts';
import type { Subcommand } from '../shared/subcommand.ts';

export const USAGE = `Usage: etcdns status [--namespace NS] [--name NAME] [--kubeconfig FILE]
       etcdns status --explain DNSNAME [--client ADDRESS] [--namespace NS] [--name NAME] [--kubeconfig FILE]

Prints the state of a running etcdns stack and exits 1 when something needs a person:
  etcd members (ready, healthy, leader, database size), each DNS server replica (ready, stale,
  revision, how far etcd may be ahead, zone serials), the secondaries' last acknowledged
  serials, the controller (leader, last sync) and the objects with problems; with a DNSSEC
  signer, the DS records its zones' parents need (its CDS, asked at its Service's address).
With --explain, prints instead, per view, why each member cluster of a hub answers DNSNAME or
  not (its entries, whether it counts and its lease, its claims, the zone's policy), once for
  the replicas that agree; a server that is not a hub says so in one line.

Options:
  --namespace NS     the stack's namespace (default etcdns)
  --name NAME        the stack's name, the prefix of its objects (default etcdns)
  --kubeconfig FILE  default: $KUBECONFIG, in a pod its ServiceAccount, else ~/.kube/config
  --explain DNSNAME  explain one name at the hubs (their /status.json?name=DNSNAME)
  --client ADDRESS   with --explain: as asked from ADDRESS (policy prefer: the client's site)

Reads through the API server: list pods, get pods/proxy (each pod's HTTP port: the stack's
NetworkPolicies must admit the API server there), get statefulsets, leases, configmaps
and services in NS.
Exit codes: 0 nothing needs a person, 1 something does (with --explain: a replica not read,
the name answered stale, a cluster's entries at it refused by its claims or left out as it does
not count), 2 usage (a bad DNSNAME or ADDRESS) or kubeconfig error.
`;

interface StatusOptions {
  namespace: string;
  name: string;
  kubeconfig: string | undefined;
  /** The name to explain, as given. */
  explain?: string;
  client?: string;
}

export function parseStatusArgs(args: string[]): StatusOptions | 'help' {
  const { values } = parseArgs({
    args,
    options: {
      namespace: { type: 'string', short: 'n' },
      name: { type: 'string' },
      kubeconfig: { type: 'string' },
      explain: { type: 'string' },
      client: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  for (const key of ['namespace', 'name'] as const)
    if (values[key] !== undefined && !label.test(values[key]))
      throw new Error(`--${key}: must be a Kubernetes name such as "etcdns" (got ${JSON.stringify(values[key])})`);
  if (values.explain !== undefined) {
    const why = dnsNameProblem(values.explain);
    if (why) throw new Error(`--explain: the name ${JSON.stringify(values.explain)} ${why}`);
  }
  if (values.client !== undefined) {
    if (values.explain === undefined) throw new Error('--client: only with --explain');
    if (isIP(values.client) === 0)
      throw new Error(`--client: must be an IP address (got ${JSON.stringify(values.client)})`);
  }
  return {
    namespace: values.namespace ?? 'etcdns',
    name: values.name ?? 'etcdns',
    kubeconfig: values.kubeconfig,
    ...(values.explain !== undefined ? { explain: values.explain } : {}),
    ...(values.client !== undefined ? { client: values.client } : {}),
  };
}

async function run(args: string[]): Promise<number> {
  let options: StatusOptions | 'help';
  try {
    options = parseStatusArgs(args);
  } catch (e) {
    process.stderr.write(`etcdns status: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  // Loaded once the arguments are good: the Kubernetes client is not needed for --help.
  const { loadKubeTarget } = await import('../kube/kube-target.ts');
  const { KubeClient } = await import('../kube/kube-client.ts');
  const { readNameStatus, readStackStatus } = await import('./stack-status.ts');
  const { statusReport } = await import('./status-report.ts');
  const { nameReport } = await import('./name-report.ts');
  let kube;
  try {
    kube = new KubeClient(loadKubeTarget(options.kubeconfig));
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`etcdns status: ${e.message}\n`);
    return 2;
  }
  try {
    // Lines fit a terminal; piped into a file or another program they stay whole.
    const width = process.stdout.isTTY ? Math.max(80, process.stdout.columns) : Infinity;
    const report =
      options.explain === undefined
        ? statusReport(await readStackStatus(kube, options.namespace, options.name), width)
        : nameReport(
            await readNameStatus(kube, options.namespace, options.name, options.explain, options.client),
            width,
          );
    process.stdout.write(`${report.lines.join('\n')}\n`);
    return report.attention.length > 0 ? 1 : 0;
  } catch (e) {
    process.stderr.write(`etcdns status: cannot read the stack: ${(e as Error).message}\n`);
    return 1;
  } finally {
    kube.close();
  }
}

const subcommand: Subcommand = { run };
export default subcommand;
