// Side by side with the real external-dns v0.22 on Istio: the same Gateways and VirtualServices
// (istio.io/api's CRDs), Services and Ingresses in one kube-apiserver; external-dns (CoreDNS
// provider, TXT registry) writes one etcd, `etcdns controller --once` another, each read by our
// DNS server. Every name is asked of both, every type: the answers must be the same except the
// differences listed, each justified in docs/sources.md ("Istio"). Then the objects external-dns
// exits on: it publishes nothing, while etcdns skips them alone and reports them (log line, Event,
// problems metric).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { ClusterCache, type ClusterChange } from '../../../../../src/runtime/controller/kube/cluster-cache.ts';
import { KubeClient } from '../../../../../src/runtime/kube/kube-client.ts';
import { loadKubeTarget } from '../../../../../src/runtime/kube/kube-target.ts';
import { createLogger } from '../../../../../src/runtime/shared/log.ts';
import { keyToName } from '../../../../../src/skydns/skydns-key.ts';
import { answerData, dig } from '../../../../support/dig.ts';
import { answerDifferences, comparable } from '../../../../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../../support/etcdns-server.ts';
import { runExternalDns } from '../../../../support/external-dns.ts';
import { installEdgeCrds } from '../../../../support/crds.ts';
import { createIstioObject, deleteIstioObject } from '../../../../support/istio.ts';
import { startKubeApiserver, type KubeHandle } from '../../../../support/kube-apiserver.ts';
import { createIngress, createLoadBalancerService } from '../../../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../../../support/process.ts';
import { controllerKubeconfig, runOnce, startController } from '../../controller-harness.ts';

const H = 'external-dns.kubernetes.io/';
const SOURCES = ['istio-gateway', 'istio-virtualservice'] as const;
const TYPES = ['A', 'AAAA', 'CNAME', 'TXT'];
const ZONE = 'example.org';

let kube: KubeHandle;
let ours: EtcdnsServerHandle;
let theirs: EtcdnsServerHandle;
let oursEtcd: EtcdHandle;
let theirsEtcd: EtcdHandle;
const figures: string[] = [];

/** The names both publish, with their targets (sorted; a name target ends with "."). */
const SAME: Record<string, string[]> = {
  'gw.example.org.': ['203.0.113.10'],
  'scoped.example.org.': ['203.0.113.10'],
  'dot.example.org.': ['203.0.113.10'],
  'internal.example.org.': ['internal.lb.example.net.'],
  'annotated.example.org.': ['192.0.2.7'],
  'bare.example.org.': ['192.0.2.7'],
  'ingress.example.org.': ['203.0.113.20'],
  'eip.example.org.': ['198.51.100.6'],
  'ttl.example.org.': ['203.0.113.10'],
  'a.wild.example.org.': ['203.0.113.10'],
  'web.example.org.': ['203.0.113.10'],
  'hn-extra.example.org.': ['203.0.113.10'],
  'two.example.org.': ['192.0.2.8', '203.0.113.10'],
  'vs-target.example.org.': ['192.0.2.9'],
  'vs-ttl.example.org.': ['203.0.113.10'],
};
/** Names neither publishes. */
const ABSENT = [
  'mesh.example.org.',
  'private.example.org.',
  'unbound.example.org.',
  'other-scope.example.org.',
  'nothing-selected.example.org.',
];
/** Why the answers differ, by name; each is in docs/sources.md ("Istio"). */
const DIFFERENCES: Record<string, string> = {
  'noselector.example.org.': "a Gateway without a selector: external-dns takes every Service's address, etcdns none",
  'x.theirs.example.org.': 'a Gateway for another controller: external-dns still gives its VirtualServices its targets',
  'caps.example.org.': 'a mixed-case host: external-dns keeps the case in the etcd key, where no query finds it',
};
const REGISTRY = 'TXT registry (ownership published in the zone)';

const gateway = (name: string, spec: { selector?: Record<string, string>; hosts: string[] }, annotations = {}) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'Gateway',
  metadata: { name, namespace: 'infra', annotations },
  spec: {
    ...(spec.selector ? { selector: spec.selector } : {}),
    servers: [{ port: { number: 80, name: 'http', protocol: 'HTTP' }, hosts: spec.hosts }],
  },
});
const virtualService = (
  name: string,
  spec: { hosts: string[]; gateways?: string[]; exportTo?: string[] },
  annotations = {},
  namespace = 'apps',
) => ({
  apiVersion: 'networking.istio.io/v1',
  kind: 'VirtualService',
  metadata: { name, namespace, annotations },
  spec: { ...spec, http: [{ route: [{ destination: { host: 'web.apps.svc.cluster.local' } }] }] },
});
const ingressGateway = { istio: 'ingressgateway' };

const externalDnsArgs = (sources: readonly string[]) => [
  ...sources.map((s) => `--source=${s}`),
  `--domain-filter=${ZONE}`,
  ...TYPES.map((t) => `--managed-record-types=${t}`),
  '--txt-owner-id=theirs',
  '--registry=txt',
  '--policy=sync',
];

before(async () => {
  kube = await startKubeApiserver();
  [oursEtcd, theirsEtcd] = await Promise.all([startEtcd(), startEtcd()]);
  [ours, theirs] = await Promise.all([
    startEtcdnsServer({ etcdEndpoints: oursEtcd.endpoints, zones: [ZONE] }),
    startEtcdnsServer({ etcdEndpoints: theirsEtcd.endpoints, zones: [ZONE] }),
  ]);
  await installEdgeCrds(kube.admin, 'istio');
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  for (const name of ['istio-system', 'infra', 'apps', 'team'])
    await core.createNamespace({ body: { metadata: { name } } });
  const kc = kube.admin;
  await createLoadBalancerService(kc, {
    name: 'istio-ingressgateway',
    namespace: 'istio-system',
    selector: { ...ingressGateway, app: 'istio-ingressgateway' },
    addresses: [{ ip: '203.0.113.10' }],
  });
  await createLoadBalancerService(kc, {
    name: 'internal-gateway',
    namespace: 'istio-system',
    selector: { istio: 'internal' },
    addresses: [{ hostname: 'internal.lb.example.net' }],
  });
  await core.createNamespacedService({
    namespace: 'istio-system',
    body: {
      metadata: { name: 'eip-gateway' },
      spec: { ports: [{ port: 80 }], selector: { istio: 'eip' }, externalIPs: ['198.51.100.6'] },
    },
  });
  await createIngress(kc, {
    name: 'front',
    namespace: 'infra',
    spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    addresses: [{ ip: '203.0.113.20' }],
  });
  const gateways = [
    gateway('public', {
      selector: ingressGateway,
      hosts: ['gw.example.org', 'apps/scoped.example.org', './dot.example.org'],
    }),
    gateway('internal', { selector: { istio: 'internal' }, hosts: ['internal.example.org'] }),
    gateway('annotated', { hosts: ['annotated.example.org', 'bare.example.org'] }, { [`${H}target`]: '192.0.2.7' }),
    gateway('via-ingress', { hosts: ['ingress.example.org'] }, { [`${H}ingress`]: 'front' }),
    gateway('eip', { selector: { istio: 'eip' }, hosts: ['eip.example.org'] }),
    gateway('ttl', { selector: ingressGateway, hosts: ['ttl.example.org'] }, { [`${H}ttl`]: '120' }),
    gateway('mesh-wide', { selector: ingressGateway, hosts: ['*'] }),
    gateway('extra', { hosts: ['*'] }, { [`${H}target`]: '192.0.2.8' }),
    gateway('wild', { selector: ingressGateway, hosts: ['*.wild.example.org'] }),
    gateway('team-only', { selector: ingressGateway, hosts: ['team/*'] }),
    gateway('nothing-selected', { selector: { istio: 'none' }, hosts: ['nothing-selected.example.org'] }),
    gateway('noselector', { hosts: ['noselector.example.org'] }),
    gateway('theirs', { selector: ingressGateway, hosts: ['*.theirs.example.org'] }, { [`${H}controller`]: 'other' }),
    gateway('caps', { selector: ingressGateway, hosts: ['Caps.example.org'] }),
  ];
  const virtualServices = [
    virtualService('web', { hosts: ['web.example.org'], gateways: ['infra/mesh-wide'] }),
    virtualService('bare', { hosts: ['bare.example.org'], gateways: ['annotated'] }, {}, 'infra'),
    virtualService('mesh', { hosts: ['mesh.example.org'], gateways: ['mesh'] }),
    virtualService('private', { hosts: ['private.example.org'], gateways: ['infra/mesh-wide'], exportTo: ['.'] }),
    virtualService('unbound', { hosts: ['unbound.example.org'], gateways: ['infra/internal'] }),
    virtualService('other-scope', { hosts: ['other-scope.example.org'], gateways: ['infra/team-only'] }),
    virtualService('wild', { hosts: ['a.wild.example.org'], gateways: ['infra/wild'] }),
    virtualService('target', { hosts: ['vs-target.example.org'] }, { [`${H}target`]: '192.0.2.9' }),
    virtualService(
      'hn',
      { hosts: ['web.example.org'], gateways: ['infra/mesh-wide'] },
      { [`${H}hostname`]: 'hn-extra.example.org' },
    ),
    virtualService('two', { hosts: ['two.example.org'], gateways: ['infra/mesh-wide', 'infra/extra'] }),
    virtualService('ttl', { hosts: ['vs-ttl.example.org'], gateways: ['infra/mesh-wide'] }, { [`${H}ttl`]: '90' }),
    virtualService('theirs', { hosts: ['x.theirs.example.org'], gateways: ['infra/theirs'] }),
  ];
  for (const o of [...gateways, ...virtualServices]) await createIstioObject(kc, o);

  let started = performance.now();
  await runExternalDns({
    kubeconfigFile: kube.kubeconfigFile,
    etcdEndpoints: theirsEtcd.endpoints,
    args: externalDnsArgs(SOURCES),
  });
  figures.push(`external-dns --once ${Math.round(performance.now() - started)} ms`);
  started = performance.now();
  const once = await runOnce({
    kubeconfigFile: await controllerKubeconfig(kube, [...SOURCES]),
    etcdEndpoints: oursEtcd.endpoints,
    ownerId: 'ours',
    args: [...SOURCES.flatMap((s) => ['--source', s]), '--domain-filter', ZONE],
  });
  assert.equal(once.code, 0, once.stderr);
  figures.push(`etcdns controller --once ${Math.round(performance.now() - started)} ms`);
  // Both servers follow their etcd through a watch; give them a moment to see the last writes.
  await new Promise((r) => setTimeout(r, 500));
});
after(async () => {
  console.log(`# figures: ${figures.join('; ')}`);
  await stopAll();
});

const typeOf = (targets: string[]) => (targets[0]!.endsWith('.') ? 'CNAME' : 'A');

test('Istio: every name external-dns publishes, etcdns publishes with the same targets; the same names are left out', async () => {
  for (const [name, want] of Object.entries(SAME))
    for (const [who, server] of [
      ['etcdns', ours],
      ['external-dns', theirs],
    ] as const)
      assert.deepEqual(
        answerData(await dig({ port: server.port, name, type: typeOf(want) }), typeOf(want)),
        want,
        `${who}: ${name}`,
      );
  for (const name of ABSENT)
    for (const server of [ours, theirs])
      assert.equal((await dig({ port: server.port, name })).status, 'NXDOMAIN', name);
  // The TTL annotation of a Gateway and of a VirtualService.
  for (const [name, ttl] of [
    ['ttl.example.org.', 120],
    ['vs-ttl.example.org.', 90],
  ] as const)
    for (const server of [ours, theirs])
      assert.equal((await dig({ port: server.port, name, type: 'A' })).answer[0]?.ttl, ttl, name);
});

test('Istio: every name, every type: the same answers as external-dns except the listed differences', async () => {
  const registry = new Set<string>();
  for (const [key, value] of Object.entries(await theirsEtcd.client().getAll().prefix('/skydns/').strings()))
    if (value.includes('heritage=external-dns'))
      registry.add(keyToName(key.slice(0, key.lastIndexOf('/')), '/skydns')!);
  assert.ok(registry.size >= Object.keys(SAME).length, `external-dns's registry names: ${[...registry].join(', ')}`);
  const names = [...Object.keys(SAME), ...ABSENT, ...Object.keys(DIFFERENCES), ...registry];
  let same = 0;
  const justified = new Map<string, number>();
  const unexpected: Record<string, string[]> = {};
  const seen = new Set<string>();
  for (const name of new Set(names))
    for (const type of TYPES) {
      const [a, b] = await Promise.all([dig({ port: ours.port, name, type }), dig({ port: theirs.port, name, type })]);
      const d = answerDifferences(comparable(a), comparable(b), ['etcdns', 'external-dns']);
      if (d.length === 0) {
        same += 1;
        continue;
      }
      const reason = registry.has(name) ? REGISTRY : DIFFERENCES[name];
      if (!reason) unexpected[`${name} ${type}`] = d;
      else {
        justified.set(reason, (justified.get(reason) ?? 0) + 1);
        seen.add(name);
      }
    }
  const total = new Set(names).size * TYPES.length;
  figures.push(
    `istio: ${total} questions, ${same} same, ${total - same - Object.keys(unexpected).length} justified (${[...justified].map(([r, n]) => `${r}: ${n}`).join('; ')}), ${Object.keys(unexpected).length} differing`,
  );
  assert.deepEqual(unexpected, {}, JSON.stringify(unexpected, null, 2));
  assert.deepEqual(
    Object.keys(DIFFERENCES).filter((k) => !seen.has(k)),
    [],
    'each listed difference still shows',
  );
});

/** The objects external-dns v0.22 exits on (istio_virtualservice.go, istio_gateway.go). */
const FATAL = [
  {
    what: 'a VirtualService gateway reference "a/b/c"',
    object: virtualService('broken-ref', { hosts: ['broken-ref.example.org'], gateways: ['a/b/c'] }),
    namespace: 'apps',
    error: /invalid ingress name/,
  },
  {
    what: 'a Gateway whose ingress annotation names a missing Ingress',
    object: gateway('missing-ingress', { hosts: ['missing-ingress.example.org'] }, { [`${H}ingress`]: 'gone' }),
    namespace: 'infra',
    error: /not found/,
  },
];

for (const [i, fatal] of FATAL.entries())
  test(`Istio: ${fatal.what}: external-dns exits publishing nothing; etcdns skips that object alone and reports it`, async () => {
    await createIstioObject(kube.admin, fatal.object);
    try {
      await assert.rejects(
        runExternalDns({
          kubeconfigFile: kube.kubeconfigFile,
          etcdEndpoints: theirsEtcd.endpoints,
          args: externalDnsArgs(SOURCES),
        }),
        fatal.error,
      );
      const controller = await startController({
        kubeconfigFile: await controllerKubeconfig(kube, [...SOURCES]),
        etcdEndpoints: oursEtcd.endpoints,
        ownerId: 'ours',
        identity: `fatal-${i}`,
        args: [...SOURCES.flatMap((s) => ['--source', s]), '--domain-filter', ZONE],
      });
      try {
        await waitFor('the problems metric', async () =>
          (await controller.metric('etcdns_controller_problems', 'reason="InvalidReference"')) >= 1 ? true : undefined,
        );
        // The Event is posted after the sync that set the metric.
        await waitFor('the Event on the object', async () => {
          const events = await kube.admin.makeApiClient(k8s.CoreV1Api).listNamespacedEvent({
            namespace: fatal.namespace,
            fieldSelector: `involvedObject.name=${fatal.object.metadata.name}`,
          });
          return events.items.some(
            (e) => e.reason === 'InvalidReference' && e.involvedObject.kind === fatal.object.kind,
          )
            ? true
            : undefined;
        });
        assert.match(controller.process.logs(), /InvalidReference/);
        assert.equal(
          (await dig({ port: ours.port, name: `${fatal.object.metadata.name}.example.org` })).status,
          'NXDOMAIN',
        );
        for (const [name, want] of Object.entries(SAME))
          assert.deepEqual(
            answerData(await dig({ port: ours.port, name, type: typeOf(want) }), typeOf(want)),
            want,
            name,
          );
      } finally {
        await controller.stop();
      }
    } finally {
      await deleteIstioObject(kube.admin, fatal.object.kind as 'Gateway', fatal.namespace, fatal.object.metadata.name);
    }
  });

test('Istio: a Service, Ingress or Gateway change re-plans only the Gateways and VirtualServices that use it', async () => {
  const client = new KubeClient(loadKubeTarget(kube.kubeconfigFile, {}));
  const changes: ClusterChange[] = [];
  const cache = new ClusterCache(client, {
    sources: [...SOURCES],
    switches: {},
    onChange: (c) => changes.push(c),
    log: createLogger('error', {}, () => undefined),
  });
  const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const custom = kube.admin.makeApiClient(k8s.CustomObjectsApi);
  try {
    await cache.start();
    await waitFor('caches synced', async () => cache.synced() || undefined);
    /** The Istio objects the change re-plans (a Service or Ingress itself is no source here). */
    const touched = async (change: () => Promise<unknown>) => {
      changes.length = 0;
      await change();
      await waitFor('the change seen', async () => changes.length > 0 || undefined);
      await new Promise((r) => setTimeout(r, 300));
      const objects = new Set<string>();
      for (const c of changes) {
        if (c === 'all') assert.fail('a change re-plans everything');
        for (const o of c.objects)
          if (o.kind === 'IstioGateway' || o.kind === 'VirtualService')
            objects.add(`${o.kind} ${o.namespace}/${o.name}`);
      }
      return [...objects].sort();
    };
    const rows: [name: string, change: () => Promise<unknown>, want: string[]][] = [
      [
        "a Service's load-balancer address: the Gateway selecting it, and the VirtualService bound to it",
        () =>
          core.patchNamespacedServiceStatus(
            {
              name: 'internal-gateway',
              namespace: 'istio-system',
              body: { status: { loadBalancer: { ingress: [{ hostname: 'internal2.lb.example.net' }] } } },
            },
            mergePatch,
          ),
        ['IstioGateway infra/internal', 'VirtualService apps/unbound'],
      ],
      [
        "an Ingress's load-balancer address: the Gateway whose annotation names it",
        () =>
          kube.admin.makeApiClient(k8s.NetworkingV1Api).patchNamespacedIngressStatus(
            {
              name: 'front',
              namespace: 'infra',
              body: { status: { loadBalancer: { ingress: [{ ip: '203.0.113.21' }] } } },
            },
            mergePatch,
          ),
        ['IstioGateway infra/via-ingress'],
      ],
      [
        'a Gateway: itself and the VirtualServices naming it',
        () =>
          custom.patchNamespacedCustomObject(
            {
              group: 'networking.istio.io',
              version: 'v1',
              namespace: 'infra',
              plural: 'gateways',
              name: 'mesh-wide',
              body: { metadata: { labels: { changed: 'yes' } } },
            },
            mergePatch,
          ),
        [
          'IstioGateway infra/mesh-wide',
          'VirtualService apps/hn',
          'VirtualService apps/private',
          'VirtualService apps/ttl',
          'VirtualService apps/two',
          'VirtualService apps/web',
        ],
      ],
      [
        'a Service no Gateway selects: nothing',
        () =>
          core.createNamespacedService({
            namespace: 'apps',
            body: { metadata: { name: 'unrelated' }, spec: { ports: [{ port: 80 }], selector: { app: 'web' } } },
          }),
        [],
      ],
    ];
    for (const [name, change, want] of rows) assert.deepEqual(await touched(change), want, name);
  } finally {
    cache.stop();
    client.close();
  }
});
