// Concrete properties of the synthesized objects of every example environment (and of a few
// variants): names, fixed selectors, namespaces, ports, probes, resources, secrets, ordering,
// config hashes. Not snapshots: each assertion states a rule of docs/gitops.md or issue 3.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../src/environments/index.ts';

// The synthesized JSON, loosely typed for inspection.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const objects = (props: DnsStackProps) => synthObjects(props) as Json[];
const ids = (list: Json[]) => list.map((o) => `${o.kind}/${o.metadata.name}`).sort();
const find = (list: Json[], kind: string, name: string) => {
  const found = list.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} exists`);
  return found;
};
const workloads = (list: Json[]) => list.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const containers = (list: Json[]) => workloads(list).flatMap((w) => w.spec.template.spec.containers as Json[]);
const initContainers = (list: Json[]) =>
  workloads(list).flatMap((w) => (w.spec.template.spec.initContainers ?? []) as Json[]);
/** etcd's flags: after `--` in the etcd-member init container, which writes them into etcd's config file. */
const etcdFlags = (sts: Json) => {
  const args = sts.spec.template.spec.initContainers[0].args as string[];
  return args.slice(args.indexOf('--') + 1);
};
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);
const selector = (component: string) => ({
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/name': 'etcdns',
});
const sorted = (names: string[]) => [...names].sort((a, b) => a.localeCompare(b));

const envs = Object.entries(ENVIRONMENTS).map(([name, props]) => [name, props, objects(props)] as const);
const dev = objects(ENVIRONMENTS.dev!);
const prod = objects(ENVIRONMENTS.prod!);
const staging = objects(ENVIRONMENTS.staging!);

test('explicit names: the objects of each environment', () => {
  const common = [
    'ClusterRole/etcdns-controller',
    'ClusterRoleBinding/etcdns-controller',
    'ConfigMap/etcdns-controller',
    'ConfigMap/etcdns-etcd-members',
    'ConfigMap/etcdns-server-internal',
    'CustomResourceDefinition/dnsendpoints.externaldns.k8s.io',
    'Deployment/etcdns-controller',
    'Deployment/etcdns-server-internal',
    'Namespace/etcdns',
    'NetworkPolicy/etcdns-controller',
    'NetworkPolicy/etcdns-etcd',
    'NetworkPolicy/etcdns-server-internal',
    'PodDisruptionBudget/etcdns-server-internal',
    'Role/etcdns-etcd',
    'Role/etcdns-server-internal',
    'RoleBinding/etcdns-etcd',
    'RoleBinding/etcdns-server-internal',
    'Service/etcdns-etcd',
    'Service/etcdns-etcd-peer',
    'Service/etcdns-server-internal',
    'ServiceAccount/etcdns-controller',
    'ServiceAccount/etcdns-etcd',
    'ServiceAccount/etcdns-server-internal',
    'StatefulSet/etcdns-etcd',
  ];
  assert.deepEqual(
    ids(dev),
    [
      ...common,
      // Its static records, one DNSEndpoint per name and type.
      'DNSEndpoint/etcdns-a-static.dev.example.org',
      'DNSEndpoint/etcdns-mx-dev.example.org',
      'DNSEndpoint/etcdns-txt-dev.example.org',
    ].sort(),
  );
  assert.deepEqual(
    ids(prod),
    [
      ...common,
      'HorizontalPodAutoscaler/etcdns-server-internal',
      'PodDisruptionBudget/etcdns-etcd',
      // Two controllers: one down at a time.
      'PodDisruptionBudget/etcdns-controller',
      'Role/etcdns-controller',
      'RoleBinding/etcdns-controller',
      'Service/etcdns-controller-metrics',
      'Service/etcdns-etcd-metrics',
      'Service/etcdns-server-internal-metrics',
      'ServiceMonitor/etcdns',
      'PrometheusRule/etcdns',
      'ConfigMap/etcdns-dashboard',
      // Split horizon: the external view's own server.
      'ConfigMap/etcdns-server-external',
      'Deployment/etcdns-server-external',
      'HorizontalPodAutoscaler/etcdns-server-external',
      'NetworkPolicy/etcdns-server-external',
      'PodDisruptionBudget/etcdns-server-external',
      'Role/etcdns-server-external',
      'RoleBinding/etcdns-server-external',
      'Service/etcdns-server-external',
      'Service/etcdns-server-external-metrics',
      'ServiceAccount/etcdns-server-external',
    ].sort(),
  );
  assert.deepEqual(
    ids(staging),
    [
      ...common.filter((n) => n !== 'Namespace/etcdns' && n !== 'Service/etcdns-server-internal'),
      'Certificate/etcd-client-tls',
      'Certificate/etcd-server-tls',
      'ExternalSecret/etcd-credentials',
      'PodDisruptionBudget/etcdns-etcd',
      'Service/etcdns-server-internal-tcp',
      'Service/etcdns-server-internal-udp',
    ].sort(),
  );
});

for (const [env, props, list] of envs) {
  const namespace = props.namespace?.name ?? 'etcdns';
  const members = props.etcd?.replicas ?? 3;
  const scheme = props.etcd?.tls ? 'https' : 'http';
  const elected = (props.controller?.replicas ?? 1) > 1;

  test(`${env}: no cdk8s path labels, name hashes or app.kubernetes.io/instance anywhere`, () => {
    const text = JSON.stringify(list);
    assert.doesNotMatch(text, /cdk8s\.io\/metadata\.addr|app\.kubernetes\.io\/instance/);
    for (const o of list) assert.doesNotMatch(o.metadata.name, /-c8[0-9a-f]{6}$/, `${o.kind}/${o.metadata.name}`);
  });

  test(`${env}: fixed selectors (name + component) on workloads, Services and PDBs`, () => {
    for (const w of workloads(list)) {
      const matchLabels = w.spec.selector.matchLabels;
      assert.deepEqual(Object.keys(matchLabels).sort(), ['app.kubernetes.io/component', 'app.kubernetes.io/name']);
      for (const [k, v] of Object.entries(matchLabels)) assert.equal(w.spec.template.metadata.labels[k], v);
    }
    for (const s of list.filter((o) => o.kind === 'Service'))
      assert.deepEqual(Object.keys(s.spec.selector).sort(), ['app.kubernetes.io/component', 'app.kubernetes.io/name']);
    for (const pdb of list.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const workload = workloads(list).find((w) => w.metadata.name === pdb.metadata.name);
      assert.deepEqual(pdb.spec.selector.matchLabels, workload?.spec.selector.matchLabels, pdb.metadata.name);
    }
    assert.deepEqual(find(list, 'StatefulSet', 'etcdns-etcd').spec.selector.matchLabels, selector('etcd'));
    assert.deepEqual(
      find(list, 'Deployment', 'etcdns-server-internal').spec.selector.matchLabels,
      selector('server-internal'),
    );
    assert.deepEqual(find(list, 'Deployment', 'etcdns-controller').spec.selector.matchLabels, selector('controller'));
  });

  test(`${env}: recommended labels on every object`, () => {
    for (const o of list)
      for (const key of ['name', 'component', 'part-of', 'managed-by', 'version'])
        assert.ok(
          o.metadata.labels?.[`app.kubernetes.io/${key}`],
          `${o.kind}/${o.metadata.name} has app.kubernetes.io/${key}`,
        );
  });

  test(`${env}: metadata.namespace on exactly the namespaced objects`, () => {
    for (const o of list) {
      if (CLUSTER_SCOPED.has(o.kind)) assert.equal(o.metadata.namespace, undefined, `${o.kind}/${o.metadata.name}`);
      else assert.equal(o.metadata.namespace, namespace, `${o.kind}/${o.metadata.name}`);
    }
  });

  test(`${env}: DNS on 5353 UDP+TCP in the pod, 53 UDP+TCP on the Service`, () => {
    const server = find(list, 'Deployment', 'etcdns-server-internal').spec.template.spec.containers[0];
    assert.deepEqual(
      server.ports.filter((p: Json) => p.containerPort === 5353).map((p: Json) => `${p.name}/${p.protocol}`),
      ['dns-tcp/TCP', 'dns-udp/UDP'],
    );
    const split = props.server?.service?.protocols === 'split';
    const services = split
      ? [find(list, 'Service', 'etcdns-server-internal-tcp'), find(list, 'Service', 'etcdns-server-internal-udp')]
      : [find(list, 'Service', 'etcdns-server-internal')];
    assert.deepEqual(
      services.flatMap((service) => service.spec.ports.map((p: Json) => `${p.port}/${p.protocol}->${p.targetPort}`)),
      ['53/TCP->dns-tcp', '53/UDP->dns-udp'],
    );
    for (const service of services) {
      assert.equal(service.spec.type, 'LoadBalancer');
      assert.equal(service.spec.externalTrafficPolicy, props.server?.service?.externalTrafficPolicy ?? 'Cluster');
    }
  });

  test(`${env}: probes, explicit resources and a restricted security context on every container`, () => {
    for (const c of containers(list))
      assert.ok(c.livenessProbe?.httpGet && c.readinessProbe?.httpGet, `${c.name} probes`);
    for (const c of [...containers(list), ...initContainers(list)]) {
      assert.ok(
        c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory,
        `${c.name} resources`,
      );
      assert.equal(c.securityContext.readOnlyRootFilesystem, true);
      assert.equal(c.securityContext.allowPrivilegeEscalation, false);
      assert.deepEqual(c.securityContext.capabilities.drop, ['ALL']);
      assert.doesNotMatch(c.image, /:latest\b|bitnami/);
    }
    for (const w of workloads(list)) {
      const pod = w.spec.template.spec.securityContext;
      assert.equal(pod.runAsNonRoot, true);
      assert.ok(pod.runAsUser > 0);
      assert.equal(pod.seccompProfile.type, 'RuntimeDefault');
      // Secret files are mounted 0440: readable only through the pod's fsGroup.
      const secretModes = ((w.spec.template.spec.volumes ?? []) as Json[])
        .filter((v) => v.secret)
        .map((v) => v.secret.defaultMode);
      if (secretModes.length > 0) assert.ok(pod.fsGroup > 0 && secretModes.every((m) => m === 0o440), w.metadata.name);
    }
    for (const name of ['etcdns-server-internal', 'etcdns-controller']) {
      const c = find(list, 'Deployment', name).spec.template.spec.containers[0];
      assert.deepEqual([c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.path], ['/healthz', '/readyz']);
      assert.equal(c.livenessProbe.httpGet.port, 'http');
    }
  });

  test(`${env}: no Secret objects; TLS and passwords only as references`, () => {
    assert.equal(list.filter((o) => o.kind === 'Secret').length, 0);
    for (const o of list) assert.equal(o.stringData, undefined);
    assert.doesNotMatch(JSON.stringify(list), /BEGIN (CERTIFICATE|PRIVATE KEY|RSA)/);
  });

  test(`${env}: lists in sorted order (env, ports, args, volumes, mounts)`, () => {
    for (const c of [...containers(list), ...initContainers(list)]) {
      const names = (xs: Json[] | undefined) => (xs ?? []).map((x) => x.name as string);
      assert.deepEqual(names(c.env), sorted(names(c.env)));
      assert.deepEqual(names(c.ports), sorted(names(c.ports)));
      assert.deepEqual(names(c.volumeMounts), sorted(names(c.volumeMounts)));
    }
    for (const w of workloads(list)) {
      const names = (w.spec.template.spec.volumes ?? []).map((v: Json) => v.name as string);
      assert.deepEqual(names, sorted(names));
    }
    const flags = etcdFlags(find(list, 'StatefulSet', 'etcdns-etcd')).map((a) => a.split('=')[0]!);
    assert.deepEqual(flags, [...flags].sort());
  });

  test(`${env}: pod templates carry the hash of their ConfigMap`, () => {
    for (const name of ['etcdns-server-internal', 'etcdns-controller']) {
      const config = find(list, 'ConfigMap', name).data['config.json'] as string;
      const hash = createHash('sha256').update(config).digest('hex').slice(0, 16);
      const annotations = find(list, 'Deployment', name).spec.template.metadata.annotations;
      assert.equal(annotations['etcdns.io/config-hash'], hash);
      assert.equal(annotations['prometheus.io/scrape'], 'true');
      assert.equal(annotations['prometheus.io/port'], '8080');
      assert.doesNotMatch(JSON.stringify(find(list, 'Deployment', name).spec.template), /etcdns\.io\/package-version/);
    }
  });

  test(`${env}: the etcd cluster: Parallel, headless peers, initial cluster, claims, quorum, etcd-member`, () => {
    const replicas = members;
    const sts = find(list, 'StatefulSet', 'etcdns-etcd');
    assert.equal(sts.spec.replicas, replicas);
    assert.equal(sts.spec.podManagementPolicy, 'Parallel');
    assert.equal(sts.spec.serviceName, 'etcdns-etcd-peer');
    const peer = find(list, 'Service', 'etcdns-etcd-peer');
    assert.equal(peer.spec.clusterIP, 'None');
    assert.equal(peer.spec.publishNotReadyAddresses, true);
    assert.equal(find(list, 'Service', 'etcdns-etcd').spec.type, 'ClusterIP');
    const pod = sts.spec.template.spec;
    const args = etcdFlags(sts);
    // The bootstrap cluster is in a ConfigMap, not the template: scaling rolls no member.
    assert.ok(!args.some((a) => a.startsWith('--initial-cluster=') || a.startsWith('--initial-cluster-state')));
    assert.deepEqual(
      find(list, 'ConfigMap', 'etcdns-etcd-members').data['initial-cluster'].split(','),
      Array.from({ length: replicas }, (_, i) => `etcdns-etcd-${i}=${scheme}://etcdns-etcd-${i}.etcdns-etcd-peer:2380`),
    );
    assert.deepEqual(pod.containers[0].args, ['--config-file=/run/etcd-member/etcd.yaml']);
    assert.deepEqual(
      pod.initContainers.map((c: Json) => [c.name, c.args.slice(0, 2), c.restartPolicy]),
      [
        ['etcd-member', ['etcd-member', '--name=$(POD_NAME)'], undefined],
        ['etcd-member-leave', ['etcd-member', 'leave'], 'Always'],
      ],
    );
    // Only the leave sidecar gets an API token, and its Role reads this StatefulSet only.
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(pod.serviceAccountName, 'etcdns-etcd');
    const tokenMounts = [...pod.containers, ...pod.initContainers]
      .filter((c: Json) => c.volumeMounts.some((m: Json) => m.name === 'kube-api-access'))
      .map((c: Json) => c.name);
    assert.deepEqual(tokenMounts, ['etcd-member-leave']);
    assert.deepEqual(find(list, 'Role', 'etcdns-etcd').rules, [
      { apiGroups: ['apps'], resources: ['statefulsets'], resourceNames: ['etcdns-etcd'], verbs: ['get'] },
    ]);
    for (const flag of [
      '--auto-compaction-mode=periodic',
      '--auto-compaction-retention=1h',
      '--quota-backend-bytes=2147483648',
    ])
      assert.ok(args.includes(flag), flag);
    const claim = sts.spec.volumeClaimTemplates[0];
    assert.equal(claim.apiVersion, 'v1');
    assert.equal(claim.kind, 'PersistentVolumeClaim');
    assert.equal(claim.spec.volumeMode, 'Filesystem');
    assert.deepEqual(claim.spec.accessModes, ['ReadWriteOnce']);
    assert.deepEqual(claim.metadata.labels, selector('etcd'), 'immutable claim templates carry only the fixed labels');
    const pdb = list.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'etcdns-etcd');
    if (replicas === 1) assert.equal(pdb, undefined, 'no PDB that would block every drain of a single member');
    else assert.equal(pdb!.spec.minAvailable, 2);
  });

  test(`${env}: the controller: token mounted, RBAC exact, leader election with more than one replica`, () => {
    const deployment = find(list, 'Deployment', 'etcdns-controller');
    const pod = deployment.spec.template.spec;
    assert.equal(pod.serviceAccountName, 'etcdns-controller');
    assert.equal(pod.automountServiceAccountToken, true);
    assert.equal(find(list, 'ServiceAccount', 'etcdns-controller').automountServiceAccountToken, true);
    // The example environments read Services, Ingresses, HTTP and gRPC routes and DNSEndpoints.
    const read = ['get', 'list', 'watch'];
    assert.deepEqual(find(list, 'ClusterRole', 'etcdns-controller').rules, [
      { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [''], resources: ['namespaces', 'nodes', 'services'], verbs: read },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      { apiGroups: ['externaldns.k8s.io'], resources: ['dnsendpoints'], verbs: read },
      { apiGroups: ['externaldns.k8s.io'], resources: ['dnsendpoints/status'], verbs: ['patch'] },
      { apiGroups: ['gateway.networking.k8s.io'], resources: ['gateways', 'grpcroutes', 'httproutes'], verbs: read },
      { apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: read },
    ]);
    const binding = find(list, 'ClusterRoleBinding', 'etcdns-controller');
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'etcdns-controller', namespace }]);
    const config = JSON.parse(find(list, 'ConfigMap', 'etcdns-controller').data['config.json']);
    assert.equal(deployment.spec.replicas, props.controller?.replicas ?? 1);
    // The Lease's namespace is the pod's own ($POD_NAMESPACE), wherever an overlay puts it.
    assert.deepEqual(config.leaderElection, { enabled: elected, leaseName: 'etcdns-controller', namespace: '' });
    assert.equal(deployment.spec.strategy.type, elected ? 'RollingUpdate' : 'Recreate');
    const role = list.find((o) => o.kind === 'Role' && o.metadata.name === 'etcdns-controller');
    if (elected)
      assert.deepEqual(
        role!.rules.map((r: Json) => r.resourceNames ?? []),
        [[], ['etcdns-controller']],
      );
    else assert.equal(role, undefined);
  });

  test(`${env}: the runtime configs point at the etcd client Service, by its namespace-relative name`, () => {
    for (const name of ['etcdns-server-internal', 'etcdns-controller']) {
      const config = JSON.parse(find(list, 'ConfigMap', name).data['config.json']);
      assert.deepEqual(config.etcd.endpoints, [`${scheme}://etcdns-etcd:2379`]);
      // With split horizon the controller lists every view; the internal one is first.
      assert.equal(config.prefix ?? config.views[0].prefix, '/skydns');
    }
    const server = JSON.parse(find(list, 'ConfigMap', 'etcdns-server-internal').data['config.json']);
    const service = props.server?.service;
    const dual = service?.ipFamilies?.includes('IPv6') || service?.ipFamilyPolicy === 'PreferDualStack';
    const any = dual ? '[::]' : '0.0.0.0';
    assert.equal(server.listen, `${any}:5353`, 'a dual-stack Service needs a dual-stack socket');
    assert.equal(server.httpListen, `${any}:8080`);
  });
}

test('prod: 3 members, >= 2 servers with HPA, a load-balancer IP, TLS references, monitoring, waves', () => {
  const deployment = find(prod, 'Deployment', 'etcdns-server-internal');
  const hpa = find(prod, 'HorizontalPodAutoscaler', 'etcdns-server-internal');
  assert.equal(deployment.spec.replicas, undefined, 'the HPA owns the replica count');
  assert.ok(hpa.spec.minReplicas >= 2);
  assert.equal(hpa.spec.scaleTargetRef.name, 'etcdns-server-internal');
  const service = find(prod, 'Service', 'etcdns-server-internal');
  assert.equal(service.metadata.annotations['metallb.universe.tf/loadBalancerIPs'], '10.9.176.53');
  assert.equal(service.spec.loadBalancerIP, undefined, 'deprecated since Kubernetes 1.24');
  const volumes = deployment.spec.template.spec.volumes as Json[];
  assert.equal(volumes.find((v) => v.name === 'etcd-tls')!.secret.secretName, 'etcdns-etcd-client-tls');
  const config = JSON.parse(find(prod, 'ConfigMap', 'etcdns-server-internal').data['config.json']);
  assert.match(config.etcd.endpoints[0], /^https:\/\//);
  assert.equal(config.etcd.tls.caFile, '/etc/etcdns/etcd-tls/ca.crt');
  const sts = find(prod, 'StatefulSet', 'etcdns-etcd');
  assert.ok(etcdFlags(sts).includes('--client-cert-auth=true'));
  assert.ok(sts.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution);
  const monitor = find(prod, 'ServiceMonitor', 'etcdns');
  assert.equal(monitor.metadata.annotations['argocd.argoproj.io/sync-options'], 'SkipDryRunOnMissingResource=true');
  assert.equal(monitor.metadata.labels.release, 'prometheus');
  const wave = (kind: string, name: string) =>
    Number(find(prod, kind, name).metadata.annotations['argocd.argoproj.io/sync-wave']);
  assert.ok(wave('Namespace', 'etcdns') < wave('StatefulSet', 'etcdns-etcd'));
  assert.ok(wave('StatefulSet', 'etcdns-etcd') < wave('Deployment', 'etcdns-server-internal'));
  assert.ok(wave('Deployment', 'etcdns-server-internal') < wave('Service', 'etcdns-server-internal'));
  for (const o of dev)
    assert.equal(o.metadata.annotations?.['argocd.argoproj.io/sync-wave'], undefined, 'waves are opt-in');
});

const base: DnsStackProps = { zones: [{ name: 'example.org' }] };

test('variant: split UDP and TCP Services with IP families and a load-balancer class', () => {
  const list = objects({
    ...base,
    server: { service: { protocols: 'split', ipFamilies: ['IPv4', 'IPv6'], loadBalancerClass: 'metallb.io/metallb' } },
  });
  const udp = find(list, 'Service', 'etcdns-server-internal-udp');
  const tcp = find(list, 'Service', 'etcdns-server-internal-tcp');
  assert.deepEqual(
    udp.spec.ports.map((p: Json) => p.protocol),
    ['UDP'],
  );
  assert.deepEqual(
    tcp.spec.ports.map((p: Json) => p.protocol),
    ['TCP'],
  );
  for (const s of [udp, tcp]) {
    assert.deepEqual(s.spec.ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(s.spec.ipFamilyPolicy, 'PreferDualStack');
    assert.equal(s.spec.loadBalancerClass, 'metallb.io/metallb');
  }
  assert.equal(
    list.find((o) => o.kind === 'Service' && o.metadata.name === 'etcdns-server-internal'),
    undefined,
  );
  const config = JSON.parse(find(list, 'ConfigMap', 'etcdns-server-internal').data['config.json']);
  assert.equal(config.listen, '[::]:5353', 'a dual-stack Service needs a dual-stack socket');
});

test('variant: the config hash follows the config, not the image version', () => {
  const hash = (props: DnsStackProps) =>
    find(objects(props), 'Deployment', 'etcdns-server-internal').spec.template.metadata.annotations[
      'etcdns.io/config-hash'
    ];
  const newer = { ...base, server: { image: { repository: 'ghcr.io/etcdns/etcdns', tag: '9.9.9' } } };
  assert.equal(hash(newer), hash(base));
  assert.notEqual(hash({ zones: [{ name: 'example.org', defaultTtl: 60 }] }), hash(base));
});

test("variant: server.maxTcpConnections reaches the server's config; unset, the server's own default holds", () => {
  const config = (props: DnsStackProps) =>
    JSON.parse(find(objects(props), 'ConfigMap', 'etcdns-server-internal').data['config.json']);
  assert.equal(config({ ...base, server: { maxTcpConnections: 10_000 } }).maxTcpConnections, 10_000);
  assert.equal(config(base).maxTcpConnections, undefined);
});

test('variant: a digest-pinned image, etcd auth by Secret reference, no Namespace object', () => {
  const digest = `sha256:${'ab'.repeat(32)}`;
  const list = objects({
    ...base,
    namespace: { name: 'dns', create: false },
    server: { image: { repository: 'ghcr.io/etcdns/etcdns', tag: '0.1.0', digest } },
    etcd: { auth: { password: { name: 'etcd-credentials', key: 'password' } } },
  });
  assert.equal(list.filter((o) => o.kind === 'Namespace').length, 0);
  for (const o of list) if (!CLUSTER_SCOPED.has(o.kind)) assert.equal(o.metadata.namespace, 'dns');
  const server = find(list, 'Deployment', 'etcdns-server-internal').spec.template.spec;
  assert.equal(server.containers[0].image, `ghcr.io/etcdns/etcdns:0.1.0@${digest}`);
  const auth = server.volumes.find((v: Json) => v.name === 'etcd-auth');
  assert.deepEqual(auth.secret.items, [{ key: 'password', path: 'password' }]);
  const config = JSON.parse(find(list, 'ConfigMap', 'etcdns-server-internal').data['config.json']);
  assert.deepEqual(config.etcd.auth, { passwordFile: '/etc/etcdns/etcd-auth/password', username: 'etcdns' });
  assert.deepEqual(config.etcd.endpoints, ['http://etcdns-etcd:2379']);
});

// [component, props, the workload whose containers get the policy, the policy]
const pullPolicyCases: [string, DnsStackProps, string | undefined, string][] = [
  ['none set: every container', base, undefined, 'IfNotPresent'],
  ['etcd', { ...base, etcd: { imagePullPolicy: 'Never' } }, 'StatefulSet/etcdns-etcd', 'Never'],
  ['server', { ...base, server: { imagePullPolicy: 'Always' } }, 'Deployment/etcdns-server-internal', 'Always'],
  ['controller', { ...base, controller: { imagePullPolicy: 'Never' } }, 'Deployment/etcdns-controller', 'Never'],
];
for (const [component, props, target, policy] of pullPolicyCases)
  test(`variant: imagePullPolicy of ${component}; the other components keep IfNotPresent`, () => {
    const list = workloads(objects(props));
    assert.equal(list.length, 3);
    for (const w of list) {
      const id = `${w.kind}/${w.metadata.name}`;
      const expected = target === undefined || id === target ? policy : 'IfNotPresent';
      for (const c of w.spec.template.spec.containers as Json[]) assert.equal(c.imagePullPolicy, expected, id);
    }
  });

// [case, server props, the config's drain, the pod's grace period]
const drainCases: [string, DnsStackProps['server'], Json, number][] = [
  ['the default', undefined, { maxSeconds: 30, seconds: 5, services: ['etcdns-server-internal'] }, 60],
  ['longer', { drainMaxSeconds: 90 }, { maxSeconds: 90, seconds: 5, services: ['etcdns-server-internal'] }, 120],
  [
    'a fixed drain longer than the maximum, split Services',
    { drainSeconds: 40, service: { protocols: 'split' } },
    { maxSeconds: 30, seconds: 40, services: ['etcdns-server-internal-tcp', 'etcdns-server-internal-udp'] },
    70,
  ],
  ['no fixed drain', { drainSeconds: 0 }, { maxSeconds: 30, seconds: 0, services: ['etcdns-server-internal'] }, 60],
];
for (const [name, server, drain, grace] of drainCases)
  test(`variant: the server drains after SIGTERM until its EndpointSlices drop it (${name}), within its grace period`, () => {
    const list = objects({ ...base, server });
    const pod = find(list, 'Deployment', 'etcdns-server-internal').spec.template.spec;
    const [container] = pod.containers as Json[];
    assert.equal(container!.lifecycle, undefined, 'no preStop hook: the server itself answers on after SIGTERM');
    assert.deepEqual(JSON.parse(find(list, 'ConfigMap', 'etcdns-server-internal').data['config.json']).drain, drain);
    assert.deepEqual(container!.env, [
      { name: 'ETCDNS_POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      { name: 'ETCDNS_POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ]);
    // The server's own 30 s after the longest drain.
    assert.equal(pod.terminationGracePeriodSeconds, grace);
  });

test('variant: each server reads EndpointSlices in its namespace, nothing else, with a token of its own', () => {
  const list = prod;
  for (const name of ['etcdns-server-internal', 'etcdns-server-external']) {
    const pod = find(list, 'Deployment', name).spec.template.spec;
    assert.equal(pod.serviceAccountName, name);
    assert.equal(pod.automountServiceAccountToken, false);
    assert.equal(find(list, 'ServiceAccount', name).automountServiceAccountToken, false);
    assert.deepEqual(
      pod.containers[0].volumeMounts.find((m: Json) => m.name === 'kube-api-access'),
      { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    );
    assert.deepEqual(find(list, 'Role', name).rules, [
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] },
    ]);
    const binding = find(list, 'RoleBinding', name);
    assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name, namespace: 'etcdns' }]);
  }
});

test('variant: only the Service source needs no Ingress permission', () => {
  const list = objects({ ...base, sources: { kinds: ['service'] } });
  const resources = (find(list, 'ClusterRole', 'etcdns-controller').rules as Json[]).flatMap((r) => r.resources);
  assert.ok(!resources.includes('ingresses'));
  assert.ok(resources.includes('services'));
});

test('staging: the ExternalSecret creates the password Secret both clients mount', () => {
  const external = find(staging, 'ExternalSecret', 'etcd-credentials');
  assert.equal(external.metadata.annotations['argocd.argoproj.io/sync-options'], 'SkipDryRunOnMissingResource=true');
  assert.deepEqual(external.spec.target, {
    name: 'etcd-credentials',
    creationPolicy: 'Owner',
    deletionPolicy: 'Retain',
  });
  assert.deepEqual(external.spec.data, [
    {
      secretKey: 'password',
      remoteRef: {
        key: 'dns/staging/etcd',
        property: 'password',
        conversionStrategy: 'Default',
        decodingStrategy: 'None',
        metadataPolicy: 'None',
      },
    },
  ]);
  for (const name of ['etcdns-server-internal', 'etcdns-controller']) {
    const volume = (find(staging, 'Deployment', name).spec.template.spec.volumes as Json[]).find(
      (v) => v.name === 'etcd-auth',
    );
    assert.deepEqual(volume?.secret.items, [{ key: 'password', path: 'password' }]);
    assert.equal(volume?.secret.secretName, 'etcd-credentials');
  }
});

test('staging: cert-manager issues the TLS Secrets etcd and its clients mount', () => {
  const server = find(staging, 'Certificate', 'etcd-server-tls');
  const client = find(staging, 'Certificate', 'etcd-client-tls');
  assert.equal(server.metadata.annotations['argocd.argoproj.io/sync-options'], 'SkipDryRunOnMissingResource=true');
  assert.deepEqual(server.spec.issuerRef, { group: 'cert-manager.io', kind: 'ClusterIssuer', name: 'internal-ca' });
  // Every name a client or a peer dials is in the server certificate.
  const config = JSON.parse(find(staging, 'ConfigMap', 'etcdns-server-internal').data['config.json']);
  const peerHosts = (find(staging, 'ConfigMap', 'etcdns-etcd-members').data['initial-cluster'] as string)
    .split(',')
    .map((m) => new URL(m.split('=').pop()!).hostname);
  const covered = (host: string) =>
    (server.spec.dnsNames as string[]).some(
      (n) =>
        n === host || (n.startsWith('*.') && host.endsWith(n.slice(1)) && !host.slice(0, -n.length + 1).includes('.')),
    );
  for (const url of config.etcd.endpoints as string[]) assert.ok(covered(new URL(url).hostname), url);
  for (const host of peerHosts) assert.ok(covered(host), host);
  assert.ok(server.spec.usages.includes('server auth') && server.spec.usages.includes('client auth'));
  assert.deepEqual(client.spec.usages, ['client auth', 'digital signature']);
  assert.equal(client.spec.commonName, 'etcdns');
  const volumes = find(staging, 'Deployment', 'etcdns-server-internal').spec.template.spec.volumes as Json[];
  assert.equal(volumes.find((v) => v.name === 'etcd-tls')!.secret.secretName, client.spec.secretName);
  const etcdVolumes = find(staging, 'StatefulSet', 'etcdns-etcd').spec.template.spec.volumes as Json[];
  assert.deepEqual(
    etcdVolumes.filter((v) => v.secret).map((v) => v.secret.secretName),
    ['etcd-server-tls', 'etcd-server-tls'],
    'one server certificate serves clients and peers',
  );
});

test('pod templates carry no package version: upgrading the package alone rolls no pods', () => {
  for (const [env, , list] of envs) {
    for (const w of workloads(list)) {
      assert.ok(
        w.metadata.labels['app.kubernetes.io/version'],
        `${env} ${w.metadata.name}: the object itself is labelled with its version`,
      );
      assert.equal(
        w.spec.template.metadata.labels['app.kubernetes.io/version'],
        undefined,
        `${env} ${w.metadata.name}: pod template`,
      );
      assert.ok(
        w.spec.template.metadata.annotations?.['etcdns.io/config-hash'] ?? w.kind === 'StatefulSet',
        `${env} ${w.metadata.name}: rolls on config changes instead`,
      );
    }
  }
});

/** etcd's check of a member's client certificate against the names a reverse lookup gives: "*.x" matches any name ending in ".x". */
const etcdAccepts = (dnsNames: string[], name: string) =>
  dnsNames.some((n) => (n.startsWith('*.') ? name.endsWith(n.slice(1)) : n === name));

// [case, clusterDomain prop, the domain the names end in]
const clusterDomainCases: [string, string | undefined, string][] = [
  ['the default', undefined, 'cluster.local'],
  ['a custom one', 'k8s.example.net', 'k8s.example.net'],
];
for (const [name, clusterDomain, domain] of clusterDomainCases)
  test(`cert-manager certificates cover the members' reverse-lookup names and the client Service's full name (cluster domain: ${name})`, () => {
    const list = objects({ ...ENVIRONMENTS.staging!, clusterDomain });
    const ns = ENVIRONMENTS.staging!.namespace!.name!;
    const dnsNames = find(list, 'Certificate', 'etcd-server-tls').spec.dnsNames as string[];
    const sts = find(list, 'StatefulSet', 'etcdns-etcd');
    for (let i = 0; i < sts.spec.replicas; i++) {
      const reverse = `etcdns-etcd-${i}.${sts.spec.serviceName}.${ns}.svc.${domain}`;
      assert.ok(etcdAccepts(dnsNames, reverse), reverse);
      assert.ok(!etcdAccepts(dnsNames, `etcdns-etcd-${i}.${sts.spec.serviceName}.${ns}.svc.other.domain`));
    }
    assert.ok(dnsNames.includes(`etcdns-etcd.${ns}.svc.${domain}`));
  });
