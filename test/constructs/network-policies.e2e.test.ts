// The NetworkPolicies and the etcd roles Job the constructs render: who may reach which port of
// which pods (one row per port and stack; zone transfers' secondaries reach the DNS port even
// where dnsFrom restricts it), every pod of the stack covered, every port a policy
// names a container port of the pods it selects, wrong props refused naming the field, and the
// objects accepted by the real kube-apiserver (server-side dry-run apply, every field kept).
// The test cluster's CNI bridge plugin does not enforce NetworkPolicy, so enforcement itself is
// not shown here (docs/security.md, "Least privilege").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { App, Chart } from 'cdk8s';
import * as k8s from '@kubernetes/client-node';
import { ConfigError } from '../../src/config/config-error.ts';
import { DnsStack, type DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { EtcdRolesJob } from '../../src/constructs/etcd/etcd-roles.ts';
import { NetworkPolicies } from '../../src/constructs/network-policies.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { startKubeApiserver, type KubeHandle } from '../support/kube-apiserver.ts';
import { stopAll } from '../support/process.ts';
import { notKept, serverSideApply } from '../support/server-side-apply.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const zones = [{ name: 'example.org' }];
const STACKS: Record<string, DnsStackProps> = {
  defaults: { zones },
  views: {
    zones,
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
    etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
    networkPolicy: {
      metricsNamespaces: ['monitoring', 'observability'],
      dnsFrom: { cidrs: ['10.0.0.0/8', '192.168.0.0/16'] },
      dnsFromByView: { external: { cidrs: ['0.0.0.0/0', '::/0'] } },
    },
  },
  closed: { zones, networkPolicy: { metricsNamespaces: [], dnsFrom: { namespaces: ['*'] } } },
  // example.org has its own secondaries; the external view its own for the others; lab only its zone's.
  transfers: {
    zones: [{ name: 'example.org', transfer: { allowCidrs: ['198.51.100.7/32'] } }, { name: 'example.net' }],
    server: { transfer: { allowCidrs: ['192.0.2.53/32', '10.0.0.0/8'] } },
    views: [
      { name: 'internal' },
      {
        name: 'external',
        prefix: '/skydns-external',
        exposure: 'external',
        transfer: { allowCidrs: ['203.0.113.0/24'] },
      },
      { name: 'lab', prefix: '/skydns-lab', zones: ['example.org'] },
    ],
    networkPolicy: {
      dnsFrom: { cidrs: ['10.0.0.0/8'] },
      dnsFromByView: { lab: { namespaces: ['lab'] } },
    },
  },
  transfersOpen: { zones, server: { transfer: { allowCidrs: ['192.0.2.53/32'] } } },
  // Egress: the API server's endpoints given, the cluster DNS the default kube-dns pods plus a
  // node-local cache; the internal view forwards and NOTIFYs, the external one only NOTIFYs.
  egress: {
    zones: [
      {
        name: 'example.org',
        transfer: { allowCidrs: ['192.0.2.0/24'], notify: ['192.0.2.53', '[2001:db8::53]:5300'] },
      },
    ],
    server: {
      forward: { upstreams: ['198.51.100.1', '198.51.100.2:5353', '192.0.2.53'], clientCidrs: ['10.0.0.0/8'] },
    },
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
    etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
    networkPolicy: {
      egress: {
        apiServer: { cidrs: ['10.0.0.12/32', '10.0.0.10/32'], ports: [6443] },
        clusterDns: { cidrs: ['169.254.20.10/32'] },
      },
    },
  },
};
const synthesized = Object.fromEntries(
  Object.entries(STACKS).map(([name, props]) => [name, synthObjects(props) as Json[]]),
);
const policies = (stack: string) => synthesized[stack]!.filter((o) => o.kind === 'NetworkPolicy');

/** Who a policy admits on one port: "any", "pods:<component>", "ns:<name>", "ns:*", "cidr:<net>". */
function admitted(policy: Json, portName: string): string[] {
  const peers: string[] = [];
  for (const rule of (policy.spec.ingress ?? []) as Json[]) {
    if (!(rule.ports as Json[]).some((p) => p.port === portName)) continue;
    if (!rule.from) peers.push('any');
    for (const peer of (rule.from ?? []) as Json[]) {
      if (peer.podSelector) {
        assert.equal(peer.podSelector.matchLabels['app.kubernetes.io/name'], 'etcdns');
        peers.push(`pods:${peer.podSelector.matchLabels['app.kubernetes.io/component']}`);
      } else if (peer.ipBlock) peers.push(`cidr:${peer.ipBlock.cidr}`);
      else if (peer.namespaceSelector?.matchExpressions)
        peers.push(...(peer.namespaceSelector.matchExpressions[0].values as string[]).map((n) => `ns:${n}`));
      else if (peer.namespaceSelector) peers.push('ns:*');
    }
  }
  return peers.sort();
}

const ETCD_CLIENTS = ['pods:controller', 'pods:etcd', 'pods:server-internal'];
// [stack, policy, port, admitted]
const ROWS: [string, string, string, string[]][] = [
  ['defaults', 'etcdns-etcd', 'client', ETCD_CLIENTS],
  ['defaults', 'etcdns-etcd', 'peer', ['pods:etcd']],
  ['defaults', 'etcdns-etcd', 'metrics', ['ns:monitoring']],
  ['defaults', 'etcdns-server-internal', 'dns-udp', ['any']],
  ['defaults', 'etcdns-server-internal', 'dns-tcp', ['any']],
  ['defaults', 'etcdns-server-internal', 'http', ['ns:monitoring']],
  ['defaults', 'etcdns-controller', 'http', ['ns:monitoring']],
  [
    'views',
    'etcdns-etcd',
    'client',
    ['pods:controller', 'pods:etcd', 'pods:etcd-roles', 'pods:server-external', 'pods:server-internal'],
  ],
  ['views', 'etcdns-etcd', 'peer', ['pods:etcd']],
  ['views', 'etcdns-etcd', 'metrics', ['ns:monitoring', 'ns:observability']],
  ['views', 'etcdns-server-internal', 'dns-udp', ['cidr:10.0.0.0/8', 'cidr:192.168.0.0/16']],
  ['views', 'etcdns-server-internal', 'dns-tcp', ['cidr:10.0.0.0/8', 'cidr:192.168.0.0/16']],
  ['views', 'etcdns-server-external', 'dns-udp', ['cidr:0.0.0.0/0', 'cidr:::/0']],
  ['views', 'etcdns-server-external', 'http', ['ns:monitoring', 'ns:observability']],
  ['views', 'etcdns-controller', 'http', ['ns:monitoring', 'ns:observability']],
  ['views', 'etcdns-etcd-roles', 'http', []],
  ['closed', 'etcdns-etcd', 'metrics', []],
  ['closed', 'etcdns-etcd', 'client', ETCD_CLIENTS],
  ['closed', 'etcdns-server-internal', 'http', []],
  ['closed', 'etcdns-server-internal', 'dns-udp', ['ns:*']],
  ['closed', 'etcdns-controller', 'http', []],
  ['transfers', 'etcdns-server-internal', 'dns-tcp', ['cidr:10.0.0.0/8', 'cidr:192.0.2.53/32', 'cidr:198.51.100.7/32']],
  ['transfers', 'etcdns-server-internal', 'dns-udp', ['cidr:10.0.0.0/8', 'cidr:192.0.2.53/32', 'cidr:198.51.100.7/32']],
  [
    'transfers',
    'etcdns-server-external',
    'dns-tcp',
    ['cidr:10.0.0.0/8', 'cidr:198.51.100.7/32', 'cidr:203.0.113.0/24'],
  ],
  ['transfers', 'etcdns-server-lab', 'dns-tcp', ['cidr:198.51.100.7/32', 'ns:lab']],
  ['transfers', 'etcdns-server-lab', 'http', ['ns:monitoring']],
  ['transfersOpen', 'etcdns-server-internal', 'dns-tcp', ['any']],
  ['transfersOpen', 'etcdns-server-internal', 'dns-udp', ['any']],
];
for (const [stack, name, port, expected] of ROWS)
  test(`${stack}: ${name} admits on ${port}: ${expected.join(', ') || 'nobody'}`, () => {
    const policy = policies(stack).find((p) => p.metadata.name === name);
    assert.ok(policy, `NetworkPolicy/${name}`);
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    assert.deepEqual(admitted(policy, port), expected);
  });

/** Where a policy lets its pods connect, as "<peer> <port>/<protocol>" ("pods:<component>", "dns:<ns>", "cidr:<net>"). */
function reached(policy: Json): string[] {
  const out: string[] = [];
  for (const rule of (policy.spec.egress ?? []) as Json[])
    for (const peer of rule.to as Json[]) {
      const who = peer.ipBlock
        ? `cidr:${peer.ipBlock.cidr}`
        : peer.namespaceSelector
          ? `dns:${peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name']}/${Object.entries(
              peer.podSelector.matchLabels as Json,
            )
              .map(([k, v]) => `${k}=${v}`)
              .join(',')}`
          : `pods:${peer.podSelector.matchLabels['app.kubernetes.io/component']}`;
      for (const p of rule.ports as Json[]) out.push(`${who} ${p.port}/${p.protocol}`);
    }
  return out.sort();
}

const DNS = ['dns:kube-system/k8s-app=kube-dns', 'cidr:169.254.20.10/32'].flatMap((d) => [
  `${d} 53/TCP`,
  `${d} 53/UDP`,
]);
const API = ['cidr:10.0.0.10/32 6443/TCP', 'cidr:10.0.0.12/32 6443/TCP'];
// [policy, where its pods may connect]
const EGRESS_ROWS: [string, string[]][] = [
  ['etcdns-etcd', [...DNS, ...API, 'pods:etcd 2379/TCP', 'pods:etcd 2380/TCP']],
  [
    'etcdns-server-internal',
    [
      ...DNS,
      ...API,
      'pods:etcd 2379/TCP',
      // Forwarders over UDP and TCP; 192.0.2.53 is also NOTIFYed (UDP): one rule.
      'cidr:198.51.100.1/32 53/TCP',
      'cidr:198.51.100.1/32 53/UDP',
      'cidr:198.51.100.2/32 5353/TCP',
      'cidr:198.51.100.2/32 5353/UDP',
      'cidr:192.0.2.53/32 53/TCP',
      'cidr:192.0.2.53/32 53/UDP',
      'cidr:2001:db8::53/128 5300/UDP',
    ],
  ],
  // An external view never forwards: only its NOTIFYs.
  [
    'etcdns-server-external',
    [...DNS, ...API, 'pods:etcd 2379/TCP', 'cidr:192.0.2.53/32 53/UDP', 'cidr:2001:db8::53/128 5300/UDP'],
  ],
  ['etcdns-controller', [...DNS, ...API, 'pods:etcd 2379/TCP']],
  // The Job talks to etcd only.
  ['etcdns-etcd-roles', [...DNS, 'pods:etcd 2379/TCP']],
];
for (const [name, expected] of EGRESS_ROWS)
  test(`egress: ${name} may connect to ${expected.length} peer ports, nothing else`, () => {
    const policy = policies('egress').find((p) => p.metadata.name === name)!;
    assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
    assert.deepEqual(reached(policy), [...expected].sort());
  });

test('egress: the ingress rules stay as they are without egress', () => {
  const withEgress = policies('egress');
  const without = synthObjects({ ...STACKS.egress!, networkPolicy: {} }) as Json[];
  for (const p of without.filter((o) => o.kind === 'NetworkPolicy')) {
    assert.equal(p.spec.egress, undefined);
    assert.deepEqual(withEgress.find((q) => q.metadata.name === p.metadata.name)!.spec.ingress, p.spec.ingress);
  }
});

test("egress: the cluster DNS's own namespace, labels and port", () => {
  const policy = (
    synthObjects({
      zones,
      networkPolicy: {
        egress: {
          apiServer: { cidrs: ['10.0.0.10/32'] },
          clusterDns: {
            namespace: 'openshift-dns',
            podLabels: { 'dns.operator.openshift.io/daemonset-dns': 'default' },
            port: 5353,
          },
        },
      },
    }) as Json[]
  ).find((o) => o.kind === 'NetworkPolicy' && o.metadata.name === 'etcdns-controller')!;
  assert.deepEqual(reached(policy), [
    'cidr:10.0.0.10/32 443/TCP',
    'cidr:10.0.0.10/32 6443/TCP',
    'dns:openshift-dns/dns.operator.openshift.io/daemonset-dns=default 5353/TCP',
    'dns:openshift-dns/dns.operator.openshift.io/daemonset-dns=default 5353/UDP',
    'pods:etcd 2379/TCP',
  ]);
});

/** Pod templates of the stack: workloads and Jobs. */
const pods = (objects: Json[]) =>
  objects
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => ({ id: `${o.kind}/${o.metadata.name}`, template: o.spec.template as Json }));
const selects = (policy: Json, labels: Record<string, string>) =>
  Object.entries(policy.spec.podSelector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v);

for (const stack of Object.keys(STACKS)) {
  test(`${stack}: every pod of the stack is selected by exactly one policy`, () => {
    for (const pod of pods(synthesized[stack]!))
      assert.equal(
        policies(stack).filter((p) => selects(p, pod.template.metadata.labels)).length,
        1,
        `${pod.id} is covered`,
      );
  });

  test(`${stack}: every port a policy names is a container port of the pods it selects`, () => {
    for (const policy of policies(stack)) {
      const selected = pods(synthesized[stack]!).filter((p) => selects(policy, p.template.metadata.labels));
      assert.ok(selected.length > 0, `${policy.metadata.name} selects pods`);
      for (const rule of (policy.spec.ingress ?? []) as Json[])
        for (const { port, protocol } of rule.ports as Json[])
          for (const pod of selected)
            assert.ok(
              (pod.template.spec.containers as Json[]).some((c) =>
                ((c.ports ?? []) as Json[]).some((p) => p.name === port && p.protocol === protocol),
              ),
              `${policy.metadata.name}: ${port}/${protocol} on ${pod.id}`,
            );
    }
  });

  test(`${stack}: synthesizing twice gives the same bytes`, () => {
    assert.equal(JSON.stringify(synthObjects(STACKS[stack]!)), JSON.stringify(synthesized[stack]));
  });
}

test('networkPolicy.enabled: false renders no policy', () => {
  assert.deepEqual(
    (synthObjects({ zones, networkPolicy: { enabled: false } }) as Json[]).filter((o) => o.kind === 'NetworkPolicy'),
    [],
  );
});

test('etcdRoles: each component mounts only its own password key and logs in as its own user', () => {
  const objects = synthesized.views!;
  const expected: [string, string, string][] = [
    ['etcdns-controller', 'etcdns-controller', 'controller'],
    ['etcdns-server-internal', 'etcdns-server-internal', 'server-internal'],
    ['etcdns-server-external', 'etcdns-server-external', 'server-external'],
  ];
  for (const [deployment, user, key] of expected) {
    const d = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment)!;
    const volume = (d.spec.template.spec.volumes as Json[]).find((v) => v.name === 'etcd-auth');
    assert.deepEqual(volume?.secret.items, [{ key, path: key }], deployment);
    assert.equal(volume?.secret.secretName, 'etcdns-etcd-users');
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === deployment)!;
    assert.equal(JSON.parse(config.data['config.json']).etcd.auth.username, user, deployment);
  }
  const job = objects.find((o) => o.kind === 'Job')!;
  assert.deepEqual(
    (job.spec.template.spec.volumes as Json[])
      .find((v) => v.name === 'etcd-users')!
      .secret.items.map((i: Json) => i.key),
    ['controller', 'root', 'server-external', 'server-internal'],
  );
  // Nothing carries a password: no Secret object, no password in an environment variable.
  assert.deepEqual(
    objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name),
    [],
  );
  assert.doesNotMatch(JSON.stringify(objects), /"name":"[A-Z_]*PASSWORD[A-Z_]*"/);
});

test('etcdRoles.job: false renders no Job; the users stay', () => {
  const objects = synthObjects({ zones, etcdRoles: { passwordSecret: 'users', job: false } }) as Json[];
  assert.equal(objects.filter((o) => o.kind === 'Job').length, 0);
  const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-controller')!;
  assert.equal(JSON.parse(config.data['config.json']).etcd.auth.username, 'etcdns-controller');
});

test("the Job's name follows its arguments: another view, another Job", () => {
  const job = (props: DnsStackProps) => (synthObjects(props) as Json[]).find((o) => o.kind === 'Job')!.metadata.name;
  const base: DnsStackProps = { zones, etcdRoles: { passwordSecret: 'users' } };
  assert.match(job(base), /^etcdns-etcd-roles-[0-9a-f]{8}$/);
  assert.equal(job(base), job({ ...base }));
  assert.notEqual(job(base), job({ ...base, views: [{ name: 'internal' }, { name: 'b', prefix: '/b' }] }));
  assert.notEqual(job(base), job({ ...base, etcdRoles: { passwordSecret: 'users', enableAuth: false } }));
});

// [what, props, a fragment of the message]
const BAD: [string, DnsStackProps, string][] = [
  [
    'a CIDR with host bits',
    { zones, networkPolicy: { dnsFrom: { cidrs: ['10.0.0.1/8'] } } },
    'networkPolicy.dnsFrom.cidrs[0]',
  ],
  ['not a CIDR', { zones, networkPolicy: { dnsFrom: { cidrs: ['office'] } } }, 'networkPolicy.dnsFrom.cidrs[0]'],
  ['an empty dnsFrom', { zones, networkPolicy: { dnsFrom: {} } }, 'networkPolicy.dnsFrom: give cidrs or namespaces'],
  [
    'a bad namespace',
    { zones, networkPolicy: { metricsNamespaces: ['Monitoring'] } },
    'networkPolicy.metricsNamespaces[0]: must be 63 or fewer lower-case',
  ],
  [
    'dnsFromByView of an unknown view',
    { zones, networkPolicy: { dnsFromByView: { public: { namespaces: ['*'] } } } },
    'networkPolicy.dnsFromByView.public: no such view (views: "internal")',
  ],
  [
    'enabled not a boolean',
    { zones, networkPolicy: { enabled: 'no' as never } },
    'networkPolicy.enabled: must be true or false',
  ],
  [
    'etcdRoles with etcd.auth',
    { zones, etcd: { auth: { password: { name: 'p', key: 'password' } } }, etcdRoles: { passwordSecret: 'users' } },
    'etcdRoles: leave etcd.auth out with etcdRoles',
  ],
  ['etcdRoles without a Secret', { zones, etcdRoles: {} as never }, 'etcdRoles.passwordSecret: required'],
  [
    'egress without the API server',
    { zones, networkPolicy: { egress: {} as never } },
    'networkPolicy.egress.apiServer: required with egress',
  ],
  [
    'egress with no API server address',
    { zones, networkPolicy: { egress: { apiServer: { cidrs: [] } } } },
    'networkPolicy.egress.apiServer.cidrs: must be a list of CIDRs',
  ],
  [
    'egress with an API server host name',
    { zones, networkPolicy: { egress: { apiServer: { cidrs: ['api.example.org'] } } } },
    'networkPolicy.egress.apiServer.cidrs[0]',
  ],
  [
    'egress with port 0',
    { zones, networkPolicy: { egress: { apiServer: { cidrs: ['10.0.0.10/32'], ports: [0] } } } },
    'networkPolicy.egress.apiServer.ports[0]: must be a port from 1 to 65535',
  ],
  [
    'egress with a bad DNS namespace',
    {
      zones,
      networkPolicy: { egress: { apiServer: { cidrs: ['10.0.0.10/32'] }, clusterDns: { namespace: 'Kube_System' } } },
    },
    'networkPolicy.egress.clusterDns.namespace',
  ],
  [
    'etcdRoles with a bad Secret name',
    { zones, etcdRoles: { passwordSecret: 'Users' } },
    'etcdRoles.passwordSecret: must be 253 or fewer',
  ],
];
for (const [what, props, message] of BAD)
  test(`refused: ${what}`, () => {
    assert.throws(
      () => new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', props),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });

test('NetworkPolicies and EtcdRolesJob used on their own check their props too', () => {
  const chart = () => new Chart(new App(), 'test', { disableResourceNameHashes: true });
  const stack = { name: 'etcdns', namespace: 'etcdns', syncWaves: false };
  assert.throws(
    () =>
      new NetworkPolicies(chart(), 'np', {
        stack,
        version: '1',
        views: ['internal'],
        rolesJob: false,
        dnsFrom: { cidrs: ['10.0.0.0/33'] },
      }),
    (e: unknown) => e instanceof ConfigError && e.message.includes('networkPolicy.dnsFrom.cidrs[0]'),
  );
  assert.throws(
    () =>
      new NetworkPolicies(chart(), 'np', {
        stack,
        version: '1',
        views: ['internal'],
        rolesJob: false,
        transferFrom: { internal: ['192.0.2.0/24', 'ns1'], other: [] },
      }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.includes('transferFrom.internal[1]') &&
      e.message.includes('transferFrom.other: no such view'),
  );
  assert.throws(
    () =>
      new EtcdRolesJob(chart(), 'job', {
        stack,
        etcd: { endpoints: ['http://etcdns-etcd:2379'] },
        users: [],
        passwordSecret: 'Not_A_Name',
        enableAuth: true,
      }),
    (e: unknown) => e instanceof ConfigError && e.message.includes('etcdRoles.passwordSecret'),
  );
});

let kube: KubeHandle;
before(async () => {
  kube = await startKubeApiserver();
});
after(stopAll);

test('the policies and the Job pass server-side dry-run apply on the real kube-apiserver, every field kept', async () => {
  await kube.admin.makeApiClient(k8s.CoreV1Api).createNamespace({ body: { metadata: { name: 'etcdns' } } });
  let applied = 0;
  for (const stack of Object.keys(STACKS))
    for (const object of synthesized[stack]!.filter((o) => o.kind === 'NetworkPolicy' || o.kind === 'Job')) {
      const stored = await serverSideApply(kube.admin, object, { dryRun: true, fieldManager: 'etcdns-test' });
      assert.deepEqual(notKept(object, stored), [], `${stack}: ${object.kind}/${object.metadata.name}`);
      applied += 1;
    }
  // defaults 3 policies, views 5 and the Job, closed 3, transfers 5, transfersOpen 3, egress 5 and the Job.
  assert.equal(applied, 26);
});
