// The synthesized NetworkPolicies enforced on real pods (issues 15 and 31): dist/dev with egress
// for this cluster (`networkPolicy.egress`: the API server and the cluster DNS, CoreDNS, on the
// node's address, as a user gives their cluster's) on the single-node cluster, whose kube-router
// firewall (test/support/cluster.ts) enforces them. Probe pods without any etcdns label, in
// etcdns's namespace, in another one and in the monitoring namespace, run the etcdns image's
// node, listen on a TCP port and connect through `kubectl exec`, each attempt bounded (2 s):
//   - etcd's client port is refused to every probe while the DNS server and the controller,
//     which the policy admits, read and publish; its peer port is refused to a non-member;
//   - the HTTP ports (etcd's metrics, the server's and the controller's) are refused from another
//     namespace and accepted from `monitoring` (metricsNamespaces);
//   - DNS (dnsFrom unset: anyone) is answered to the probes, over UDP and TCP;
//   - with etcd's policy deleted the same probe connects, and refused again once it is back: the
//     policy, not the probe, refuses;
//   - egress: the DNS server and the controller connect to etcd's client port from their own pods
//     (and read, publish and resolve etcd's name under enforcement), and are refused a probe
//     pod's port, in their namespace and in another, which a probe reaches.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { writeManifests } from '../../src/constructs/output/manifest-writer.ts';
import { synthStack } from '../../src/constructs/synth-stack.ts';
import { dev } from '../../src/environments/dev.ts';
import type { Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  applyStack,
  component,
  NAMESPACE,
  neverPull,
  prepareStack,
  publishService,
  SERVER,
  soaAnswered,
  timeUntil,
  waitPodsReady,
  ZONE,
  type DnsService,
} from './stack-support.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster, untilStackUp } from './cluster-suite.ts';

/** metricsNamespaces of dist/dev (the default). */
const MONITORING = 'monitoring';
const ELSEWHERE = 'elsewhere';
const PROBE = 'probe';
const ETCD_POLICY = 'etcdns-etcd';
/** The port every probe pod listens on (a refused connection to it is the policy's doing). */
const PROBE_PORT = 8081;

/** One TCP connect: "connected", "refused <code>" or "timeout" after 2 s. */
const TCP_PROBE = `
const s = require('node:net').connect({ host: process.argv[1], port: Number(process.argv[2]) });
s.setTimeout(2000, () => { console.log('timeout'); process.exit(0); });
s.on('connect', () => { console.log('connected'); process.exit(0); });
s.on('error', (e) => { console.log('refused ' + e.code); process.exit(0); });
`;
/** One SOA query over UDP, one try of 2 s: "answered <serial>" or "error <code>". */
const DNS_PROBE = `
const r = new (require('node:dns').promises.Resolver)({ timeout: 2000, tries: 1 });
r.setServers([process.argv[1] + ':' + process.argv[2]]);
r.resolveSoa(process.argv[3]).then((soa) => console.log('answered ' + soa.serial), (e) => console.log('error ' + e.code));
`;

let cluster: Cluster;
let images: ClusterImages;
/** The folder of the stack applied: dist/dev's objects with egress for this cluster. */
let stackDir: string;
let dns: DnsService;
const ips: Record<string, string> = {};
const figures: string[] = [];
const tally = { refused: 0, allowed: 0 };
/** How the refused probes ended (kube-router REJECTs: "refused ECONNREFUSED"; a DROP would time out). */
const refusals = new Map<string, number>();

function exec(namespace: string, script: string, args: (string | number)[], pod = PROBE): string {
  return cluster.kubectl(['exec', '-n', namespace, pod, '--', 'node', '-e', script, ...args.map(String)]).trim();
}

const tcp = (from: string, ip: string, port: number) => exec(from, TCP_PROBE, [ip, port]);
/** A TCP connect from a pod of the stack (its image has node too), e.g. deployment/etcdns-controller. */
const tcpFromStack = (workload: string, ip: string, port: number) => exec(NAMESPACE, TCP_PROBE, [ip, port], workload);
const blocked = (result: string) => /^(refused|timeout)/.test(result);

function assertRefused(from: string, target: string, port: number): void {
  const r = tcp(from, ips[target]!, port);
  assert.ok(blocked(r), `${from} -> ${target}:${port} should be refused, got "${r}"`);
  tally.refused++;
  refusals.set(r, (refusals.get(r) ?? 0) + 1);
}

function assertConnects(from: string, target: string, port: number): void {
  const r = tcp(from, ips[target]!, port);
  assert.equal(r, 'connected', `${from} -> ${target}:${port}`);
  tally.allowed++;
}

/** A pod with no etcdns label running the etcdns image's node, idle: the probes exec into it. */
async function createProbe(namespace: string): Promise<void> {
  const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
  if (namespace !== NAMESPACE) await core.createNamespace({ body: { metadata: { name: namespace } } });
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: PROBE, labels: { 'etcdns-test': PROBE } },
      spec: {
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 0,
        containers: [
          {
            name: PROBE,
            image: `${images.etcdns.repository}:${images.etcdns.tag}`,
            imagePullPolicy: 'Never',
            command: [
              'node',
              '-e',
              `require('node:net').createServer((s) => s.end()).listen(${PROBE_PORT}); setInterval(() => {}, 3_600_000)`,
            ],
            securityContext: {
              allowPrivilegeEscalation: false,
              runAsNonRoot: true,
              capabilities: { drop: ['ALL'] },
              // etcdns's namespace enforces the restricted Pod Security Standard.
              seccompProfile: { type: 'RuntimeDefault' },
            },
          },
        ],
      },
    },
  });
}

async function podIp(selector: string): Promise<string> {
  const [pod] = await waitPodsReady(cluster.admin, selector, 1);
  return pod!.ip!;
}

describe(
  'the NetworkPolicies of dist/dev enforced on a real single-node cluster (kube-router)',
  { timeout: 1_200_000 },
  () => {
    before(async () => {
      ({ cluster, images } = await startSuiteCluster(figures));
      figures.push(`kube-router's first sync ${/sync iptables took (\S+)/.exec(cluster.logs('kube-router'))?.[1]}`);
      await prepareStack(cluster);
      // The API server and CoreDNS listen on the node's address here (test/support/cluster.ts).
      const apiPort = Number(new URL(cluster.server).port);
      stackDir = join(tempDir('dist-dev-egress'), 'dev');
      writeManifests(
        stackDir,
        synthStack(
          neverPull({
            ...dev,
            networkPolicy: {
              egress: {
                apiServer: { cidrs: [`${cluster.nodeIp}/32`], ports: [apiPort] },
                clusterDns: { cidrs: [`${cluster.nodeIp}/32`] },
              },
            },
          }),
        ),
      );
      dns = await applyStack(cluster, images, { dir: stackDir, patches: [] });
      await untilStackUp(cluster, 'the first SOA answer through the ClusterIP', () => soaAnswered(dns.clusterIp, 53), {
        timeoutMs: 240_000,
        intervalMs: 250,
      });
      await diagnosed(cluster, async () => {
        ips.etcd = await podIp(component('etcd'));
        ips.server = await podIp(component('server-internal'));
        ips.controller = await podIp(component('controller'));
        for (const namespace of [NAMESPACE, ELSEWHERE, MONITORING]) await createProbe(namespace);
        for (const namespace of [NAMESPACE, ELSEWHERE, MONITORING])
          await waitPodsReady(cluster.admin, `etcdns-test=${PROBE}`, 1, 120_000, namespace);
      });
    });

    after(() =>
      stopSuiteCluster(cluster, figures, async () => {
        const kinds = [...refusals].map(([r, n]) => `${n} ${r}`).join(', ');
        figures.push(`probes refused ${tally.refused} (${kinds}), allowed ${tally.allowed}`);
      }),
    );

    test("etcd's client port is refused to pods without etcdns labels (any namespace), while the DNS server and the controller read and publish through it", async () => {
      for (const from of [NAMESPACE, ELSEWHERE, MONITORING]) assertRefused(from, 'etcd', 2379);
      // New server and controller pods, whose connections to etcd all open under enforcement (a
      // connection opened before kube-router had synced a new pod would stay open as established).
      const t0 = performance.now();
      cluster.kubectl(['rollout', 'restart', '-n', NAMESPACE, 'deployment/etcdns-controller', `deployment/${SERVER}`]);
      for (const d of ['etcdns-controller', SERVER])
        cluster.kubectl(['rollout', 'status', '-n', NAMESPACE, `deployment/${d}`, '--timeout=180s']);
      ips.server = await podIp(component('server-internal'));
      ips.controller = await podIp(component('controller'));
      figures.push(
        `server and controller restarted under enforcement -> Ready ${Math.round(performance.now() - t0)} ms`,
      );
      // The new controller writes the record to etcd and the new server's watch reads it back.
      const publishMs = await publishService(cluster, dns, 'web', '10.213.200.80', 10_000);
      figures.push(`Service create -> answer under enforcement ${publishMs} ms`);
    });

    test("etcd's peer port is refused to a pod that is not a member", () => {
      assertRefused(NAMESPACE, 'etcd', 2380);
    });

    test('the HTTP ports (metrics, health) are refused from another namespace and accepted from monitoring', () => {
      for (const [target, port] of [
        ['etcd', 2381],
        ['server', 8080],
        ['controller', 8080],
      ] as const) {
        assertRefused(ELSEWHERE, target, port);
        assertRefused(NAMESPACE, target, port);
        assertConnects(MONITORING, target, port);
      }
    });

    test('DNS is answered to every probe (dnsFrom unset), over UDP through the ClusterIP and the pod address, and TCP', () => {
      for (const from of [NAMESPACE, ELSEWHERE]) {
        for (const [address, port] of [
          [dns.clusterIp, 53],
          [ips.server!, 5353],
        ] as const) {
          const r = exec(from, DNS_PROBE, [address, port, ZONE]);
          assert.match(r, /^answered \d+$/, `${from} -> ${address}:${port} SOA`);
          tally.allowed++;
        }
        assertConnects(from, 'server', 5353);
      }
    });

    test("without etcd's policy the same probe connects to the client port; with it back, refused again", async () => {
      const file = join(stackDir, `networkpolicy-${ETCD_POLICY}.yaml`);
      const connects = async () => tcp(NAMESPACE, ips.etcd!, 2379) === 'connected';
      try {
        const t0 = performance.now();
        cluster.kubectl(['delete', 'networkpolicy', '-n', NAMESPACE, ETCD_POLICY]);
        await timeUntil('the client port open to the probe', connects, 60_000, 250);
        figures.push(`policy deleted -> client port open ${Math.round(performance.now() - t0)} ms`);
        assertConnects(NAMESPACE, 'etcd', 2379);
      } finally {
        const t1 = performance.now();
        cluster.kubectl(['apply', '--server-side', '--field-manager=etcdns-cluster-test', '-f', file]);
        await timeUntil('the client port refused again', async () => !(await connects()), 60_000, 250);
        figures.push(`policy created -> enforced ${Math.round(performance.now() - t1)} ms`);
      }
      assertRefused(NAMESPACE, 'etcd', 2379);
      assertRefused(ELSEWHERE, 'etcd', 2379);
    });

    test("egress: the DNS server and the controller connect to etcd's client port from their own pods", () => {
      for (const workload of [`deployment/${SERVER}`, 'deployment/etcdns-controller']) {
        const r = tcpFromStack(workload, ips.etcd!, 2379);
        assert.equal(r, 'connected', `${workload} -> etcd:2379`);
        tally.allowed++;
      }
    });

    test("egress: the DNS server and the controller are refused a probe's port (their namespace and another), which a probe reaches", async () => {
      const probes: Record<string, string> = {};
      for (const namespace of [NAMESPACE, ELSEWHERE]) {
        const [pod] = await waitPodsReady(cluster.admin, `etcdns-test=${PROBE}`, 1, 30_000, namespace);
        probes[namespace] = pod!.ip!;
      }
      for (const [namespace, ip] of Object.entries(probes)) {
        // The port is open: a probe without an egress policy connects.
        assert.equal(tcp(MONITORING, ip, PROBE_PORT), 'connected', `monitoring probe -> ${namespace} probe`);
        tally.allowed++;
        for (const workload of [`deployment/${SERVER}`, 'deployment/etcdns-controller']) {
          const r = tcpFromStack(workload, ip, PROBE_PORT);
          assert.ok(blocked(r), `${workload} -> ${namespace} probe:${PROBE_PORT} should be refused, got "${r}"`);
          tally.refused++;
          refusals.set(r, (refusals.get(r) ?? 0) + 1);
        }
      }
    });
  },
);
