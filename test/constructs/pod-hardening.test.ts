// What a platform team's linters and policy engines ask of every pod (issue 31): one row per rule
// and stack, over the example environments and variants that add containers or volumes (the
// etcd-roles Job, zone-transfer keys, no snapshot, sizes and resources of the user's own).
//   - every container, init and sidecar containers included, requests and limits ephemeral
//     storage (logs and emptyDirs count against it);
//   - every emptyDir has a sizeLimit;
//   - every pod and Job runs as 65532:65532 (no login user of a node), fsGroup 65532, and no
//     container overrides it; the image's USER is the same (test/image/);
//   - no CPU limit unless asked (throttling shows up as DNS latency), pull policy IfNotPresent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../src/environments/index.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const zones = [{ name: 'example.org' }];
const STACKS: Record<string, DnsStackProps> = {
  ...ENVIRONMENTS,
  roles: {
    zones,
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
    etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
    server: { transfer: { allowCidrs: ['192.0.2.53/32'], keySecret: { name: 'tsig' } } },
  },
  noSnapshot: { zones, server: { snapshot: false } },
  dnssec: {
    zones,
    dnssec: { podCidrs: ['10.244.0.0/16'], tsig: { secretName: 'tsig', keyName: 'signer.example.org' } },
  },
};

/** Every pod template: Deployments, StatefulSets and Jobs. */
function pods(props: DnsStackProps): { id: string; spec: Json }[] {
  return (synthObjects(props) as Json[])
    .filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))
    .map((o) => ({ id: `${o.kind}/${o.metadata.name}`, spec: o.spec.template.spec as Json }));
}
const allContainers = (spec: Json) => [...((spec.initContainers ?? []) as Json[]), ...(spec.containers as Json[])];

for (const [stack, props] of Object.entries(STACKS)) {
  test(`${stack}: every container requests and limits ephemeral storage`, () => {
    for (const pod of pods(props))
      for (const c of allContainers(pod.spec)) {
        assert.match(String(c.resources?.requests?.['ephemeral-storage']), /^\d+Mi$/, `${pod.id} ${c.name} request`);
        assert.match(String(c.resources?.limits?.['ephemeral-storage']), /^\d+Mi$/, `${pod.id} ${c.name} limit`);
      }
  });

  test(`${stack}: every emptyDir has a sizeLimit`, () => {
    let emptyDirs = 0;
    for (const pod of pods(props))
      for (const v of (pod.spec.volumes ?? []) as Json[])
        if (v.emptyDir) {
          emptyDirs++;
          assert.match(String(v.emptyDir.sizeLimit), /^\d+Mi$/, `${pod.id} volume ${v.name}`);
        }
    assert.ok(emptyDirs >= 3, `${emptyDirs} emptyDirs (controller and server /tmp, etcd's member config)`);
  });

  test(`${stack}: every pod runs as 65532:65532 (fsGroup 65532), no container overrides it`, () => {
    for (const pod of pods(props)) {
      const sc = pod.spec.securityContext;
      assert.deepEqual(
        [sc.runAsNonRoot, sc.runAsUser, sc.runAsGroup, sc.fsGroup, sc.seccompProfile.type],
        [true, 65532, 65532, 65532, 'RuntimeDefault'],
        pod.id,
      );
      for (const c of allContainers(pod.spec)) {
        assert.equal(c.securityContext.runAsUser, undefined, `${pod.id} ${c.name}`);
        assert.equal(c.securityContext.runAsGroup, undefined, `${pod.id} ${c.name}`);
      }
    }
  });

  test(`${stack}: no CPU limit and pull policy IfNotPresent on every container`, () => {
    for (const pod of pods(props))
      for (const c of allContainers(pod.spec)) {
        assert.equal(c.resources.limits.cpu, undefined, `${pod.id} ${c.name}`);
        assert.equal(c.imagePullPolicy, 'IfNotPresent', `${pod.id} ${c.name}`);
      }
  });
}

// [what, props, pod, container or volume, the field's expected value]
const OWN: [string, DnsStackProps, string, string, Json][] = [
  [
    "the server's own ephemeral storage",
    { zones, server: { resources: { requests: { ephemeralStorage: '100Mi' }, limits: { ephemeralStorage: '2Gi' } } } },
    'Deployment/etcdns-server-internal',
    'server',
    { requests: '100Mi', limits: '2Gi' },
  ],
  [
    "etcd's own ephemeral-storage limit, the request its default",
    { zones, etcd: { resources: { limits: { ephemeralStorage: '1Gi' } } } },
    'StatefulSet/etcdns-etcd',
    'etcd',
    { requests: '64Mi', limits: '1Gi' },
  ],
  [
    "the controller's /tmp size",
    { zones, controller: { tmpSizeLimit: '16Mi' } },
    'Deployment/etcdns-controller',
    'tmp',
    { sizeLimit: '16Mi' },
  ],
  [
    "the server's snapshot size",
    { zones, server: { snapshotSizeLimit: '1Gi' } },
    'Deployment/etcdns-server-internal',
    'snapshot',
    { sizeLimit: '1Gi' },
  ],
  [
    'an identity of the user',
    { zones, controller: { securityContext: { runAsUser: 4242 } } },
    'Deployment/etcdns-controller',
    'securityContext',
    { runAsUser: 4242, runAsGroup: 65532 },
  ],
];
for (const [what, props, podId, name, expected] of OWN)
  test(`props: ${what}`, () => {
    const pod = pods(props).find((p) => p.id === podId)!;
    if (name === 'securityContext') {
      assert.deepEqual(
        { runAsUser: pod.spec.securityContext.runAsUser, runAsGroup: pod.spec.securityContext.runAsGroup },
        expected,
      );
      return;
    }
    const volume = ((pod.spec.volumes ?? []) as Json[]).find((v) => v.name === name);
    if (volume) {
      assert.deepEqual({ sizeLimit: volume.emptyDir.sizeLimit }, expected);
      return;
    }
    const c = allContainers(pod.spec).find((x) => x.name === name)!;
    assert.deepEqual(
      { requests: c.resources.requests['ephemeral-storage'], limits: c.resources.limits['ephemeral-storage'] },
      expected,
    );
  });

// The controller and the servers share one rule for their replicas: with more than one, a PDB
// allowing one pod down and anti-affinity across nodes. [what, props, deployment, pdb, affinity]
const objectsOf = (props: DnsStackProps) => synthObjects(props) as Json[];
const SPREAD: [string, DnsStackProps, string, boolean, string | undefined][] = [
  ['controller, 1 replica', { zones }, 'etcdns-controller', false, undefined],
  ['controller, 2 replicas', { zones, controller: { replicas: 2 } }, 'etcdns-controller', true, 'preferred'],
  [
    'controller, 2 replicas, required, no PDB',
    { zones, controller: { replicas: 2, antiAffinity: 'required', podDisruptionBudget: false } },
    'etcdns-controller',
    false,
    'required',
  ],
  ['server, 2 replicas (default)', { zones }, 'etcdns-server-internal', true, 'preferred'],
  [
    'server, 1 replica (an HPA may scale it)',
    { zones, server: { replicas: 1 } },
    'etcdns-server-internal',
    true,
    'preferred',
  ],
  ['prod: the controller', ENVIRONMENTS.prod!, 'etcdns-controller', true, 'preferred'],
];
for (const [what, props, name, pdb, affinity] of SPREAD)
  test(`replicas kept apart and available: ${what}: PDB ${pdb}, anti-affinity ${affinity ?? 'none'}`, () => {
    const objects = objectsOf(props);
    const budget = objects.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === name);
    const pod = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template;
    assert.equal(budget !== undefined, pdb);
    if (budget) {
      assert.equal(budget.spec.maxUnavailable, 1);
      assert.deepEqual(budget.spec.selector.matchLabels, {
        'app.kubernetes.io/component': pod.metadata.labels['app.kubernetes.io/component'],
        'app.kubernetes.io/name': 'etcdns',
      });
    }
    const anti = pod.spec.affinity?.podAntiAffinity;
    const mode = anti?.requiredDuringSchedulingIgnoredDuringExecution
      ? 'required'
      : anti?.preferredDuringSchedulingIgnoredDuringExecution
        ? 'preferred'
        : undefined;
    assert.equal(mode, affinity);
    if (budget && anti) {
      const term =
        anti.requiredDuringSchedulingIgnoredDuringExecution?.[0] ??
        anti.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm;
      assert.deepEqual(term.labelSelector.matchLabels, budget.spec.selector.matchLabels);
      assert.equal(term.topologyKey, 'kubernetes.io/hostname');
    }
  });
