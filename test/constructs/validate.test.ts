// Invalid props fail synth with a message naming the field and what is allowed: one row per
// mistake, each checked through the real entry point (constructing a DnsStack).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { App, Chart } from 'cdk8s';
import { DnsStack, type DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { dev } from '../../src/environments/dev.ts';
import { prod } from '../../src/environments/prod.ts';

function build(props: DnsStackProps): void {
  new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', props);
}

const valid: DnsStackProps = { zones: [{ name: 'example.org' }] };

// [what, props, field named, what is allowed (a fragment of the message)]
const cases: [string, DnsStackProps, string, string][] = [
  ['even number of etcd members', { ...valid, etcd: { replicas: 4 } }, 'etcd.replicas', '1, 3, 5, 7 or 9 (got 4)'],
  ['zero etcd members', { ...valid, etcd: { replicas: 0 } }, 'etcd.replicas', 'odd number'],
  ['fractional etcd members', { ...valid, etcd: { replicas: 2.5 } }, 'etcd.replicas', 'odd number'],
  ['zone that is not a DNS name', { zones: [{ name: 'bad_zone..org' }] }, 'zones[0].name', 'valid domain name'],
  ['zone with a space', { zones: [{ name: 'my zone.org' }] }, 'zones[0].name', 'invalid label'],
  ['root zone', { zones: [{ name: '.' }] }, 'zones[0].name', 'must not be the root zone'],
  ['no zones', { zones: [] }, 'zones', 'at least one of zones'],
  ['zone listed twice', { zones: [{ name: 'a.org' }, { name: 'A.org.' }] }, 'zones[1].name', 'listed twice'],
  ['TTL zero', { zones: [{ name: 'a.org', defaultTtl: 0 }] }, 'zones[0].defaultTtl', 'from 1 to 2147483647'],
  [
    'TTL above 2^31-1',
    { zones: [{ name: 'a.org', defaultTtl: 2 ** 31 }] },
    'zones[0].defaultTtl',
    'from 1 to 2147483647',
  ],
  [
    'SOA minimum negative',
    { zones: [{ name: 'a.org', soa: { minimum: -1 } }] },
    'zones[0].soa.minimum',
    'from 0 to 2147483647',
  ],
  ['SOA rname not a name', { zones: [{ name: 'a.org', soa: { rname: 'a b' } }] }, 'zones[0].soa.rname', 'domain name'],
  [
    'view refers to an unknown zone',
    { ...valid, views: [{ name: 'internal', zones: ['example.com'] }] },
    'views[0].zones[0]',
    `"example.com" is not one of the stack's zones ("example.org")`,
  ],
  [
    'a view answering a network that is not a CIDR',
    { ...valid, views: [{ name: 'internal', allowQueryFrom: ['10.0.0.0/8', '10.0.0.0'] }] },
    'views[0].allowQueryFrom[1]',
    'CIDR',
  ],
  [
    'a catalog zone that is not a name',
    { ...valid, server: { transfer: { allowCidrs: ['192.0.2.53/32'] }, catalog: { zone: 'catalog..invalid' } } },
    'server.catalog.zone',
    'valid domain name',
  ],
  [
    'a catalog without transfer',
    { ...valid, server: { catalog: { zone: 'catalog.etcdns.invalid' } } },
    'server.catalog.zone',
    "needs transfer (the view's or the server's)",
  ],
  [
    'a catalog that is one of the zones',
    { ...valid, server: { transfer: { allowCidrs: ['192.0.2.53/32'] }, catalog: { zone: 'Example.org.' } } },
    'server.catalog.zone',
    'it clashes with "example.org."',
  ],
  [
    "a view's catalog below one of the zones",
    {
      ...valid,
      server: { transfer: { allowCidrs: ['192.0.2.53/32'] } },
      views: [{ name: 'internal', catalog: { zone: 'catalog.example.org' } }],
    },
    'views[0].catalog.zone',
    'must be a name of its own',
  ],
  [
    'a view preferring a network with host bits set',
    { ...valid, views: [{ name: 'internal', answerOrder: { prefer: ['10.1.0.0/16', '10.2.0.1/16'] } }] },
    'views[0].answerOrder.prefer[1]',
    'host bits set',
  ],
  [
    'an answer rotation that is not known',
    { ...valid, server: { answerOrder: { rotation: 'random' as 'off' } } },
    'server.answerOrder.rotation',
    '"round-robin"',
  ],
  ['two views on one prefix', { ...valid, views: [{ name: 'a' }, { name: 'b' }] }, 'views[1].prefix', 'overlaps'],
  [
    'two views of one name',
    { ...valid, views: [{ name: 'a' }, { name: 'a', prefix: '/b' }] },
    'views[1].name',
    'already the name',
  ],
  [
    'external view taking every resource',
    {
      ...valid,
      views: [
        { name: 'internal' },
        { name: 'external', prefix: '/ext', exposure: 'external', selection: { mode: 'all' } },
      ],
    },
    'views[1].selection.mode',
    'opted in',
  ],
  [
    'rewrite rule mapping networks of different sizes',
    {
      ...valid,
      views: [
        {
          name: 'internal',
          rules: [{ name: 'm', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/25' } } }],
        },
      ],
    },
    'views[0].rules[0].action.mapCidr.to',
    'prefix length',
  ],
  ['view name not a label', { ...valid, views: [{ name: 'Internal' }] }, 'views[0].name', 'lower-case letters'],
  [
    'view prefix without slash',
    { ...valid, views: [{ name: 'internal', prefix: 'skydns' }] },
    'views[0].prefix',
    '"/skydns"',
  ],
  [
    'view prefixes equal but for a trailing slash',
    { ...valid, views: [{ name: 'a' }, { name: 'b', prefix: '/skydns/' }] },
    'views[1].prefix',
    'overlaps',
  ],
  [
    'view name longer than object names allow',
    { ...valid, views: [{ name: 'a'.repeat(16) }] },
    'views[0].name',
    '15 or fewer',
  ],
  [
    'label selector (checked as the controller checks it)',
    { ...valid, sources: { labelSelector: 'app in web' } },
    'sources.labelSelector',
    'is not a selector',
  ],
  [
    'image tag latest',
    { ...valid, server: { image: { repository: 'ghcr.io/x/etcdns', tag: 'latest' } } },
    'server.image.tag',
    'not "latest"',
  ],
  [
    'etcd image tag latest',
    { ...valid, etcd: { image: { repository: 'quay.io/coreos/etcd', tag: 'latest' } } },
    'etcd.image.tag',
    'not "latest"',
  ],
  [
    'malformed digest',
    { ...valid, controller: { image: { repository: 'ghcr.io/x/y', tag: '1', digest: 'sha256:abc' } } },
    'controller.image.digest',
    '64 lower-case hex',
  ],
  [
    'upper-case repository',
    { ...valid, server: { image: { repository: 'GHCR.io/X', tag: '1' } } },
    'server.image.repository',
    'lower-case',
  ],
  ['stack name too long', { ...valid, name: 'a'.repeat(31) }, 'name', '30 or fewer'],
  ['namespace not a label', { ...valid, namespace: { name: 'My_NS' } }, 'namespace.name', 'lower-case letters'],
  ['server replicas zero', { ...valid, server: { replicas: 0 } }, 'server.replicas', 'from 1 to 100'],
  [
    'HPA max below min',
    { ...valid, server: { replicas: 3, autoscaling: { maxReplicas: 2 } } },
    'server.autoscaling.maxReplicas',
    'at least minReplicas (3)',
  ],
  [
    'HPA target above 100',
    { ...valid, server: { autoscaling: { maxReplicas: 4, targetCpuUtilization: 150 } } },
    'server.autoscaling.targetCpuUtilization',
    'percentage from 1 to 100',
  ],
  [
    'load-balancer IP invalid',
    { ...valid, server: { service: { loadBalancerIP: '10.0.0.300' } } },
    'server.service.loadBalancerIP',
    'IPv4 or IPv6 address',
  ],
  [
    'load-balancer IP on ClusterIP',
    { ...valid, server: { service: { type: 'ClusterIP', loadBalancerIP: '10.0.0.1' } } },
    'server.service.loadBalancerIP',
    'only allowed with type "LoadBalancer"',
  ],
  [
    'traffic policy on ClusterIP',
    { ...valid, server: { service: { type: 'ClusterIP', externalTrafficPolicy: 'Local' } } },
    'server.service.externalTrafficPolicy',
    '"LoadBalancer" or "NodePort"',
  ],
  [
    'unknown traffic policy',
    { ...valid, server: { service: { externalTrafficPolicy: 'Nearest' as 'Local' } } },
    'server.service.externalTrafficPolicy',
    'one of "Cluster", "Local"',
  ],
  [
    'IP families duplicated',
    { ...valid, server: { service: { ipFamilies: ['IPv4', 'IPv4'] } } },
    'server.service.ipFamilies',
    '["IPv4", "IPv6"]',
  ],
  [
    'SingleStack with two families',
    { ...valid, server: { service: { ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'SingleStack' } } },
    'server.service.ipFamilyPolicy',
    'one IP family',
  ],
  [
    'unknown protocols mode',
    { ...valid, server: { service: { protocols: 'both' as 'split' } } },
    'server.service.protocols',
    '"mixed", "split"',
  ],
  [
    'view service overrides checked',
    { ...valid, views: [{ name: 'internal', service: { loadBalancerIP: 'nope' } }] },
    'views[0].service.loadBalancerIP',
    'IPv4 or IPv6',
  ],
  [
    'forward upstream not an IP',
    { ...valid, server: { forward: { upstreams: ['dns.google'], clientCidrs: [] } } },
    'server.forward.upstreams[0]',
    '"ip:port"',
  ],
  [
    'forward CIDR bad',
    { ...valid, server: { forward: { upstreams: ['1.1.1.1'], clientCidrs: ['10.0.0.0/33'] } } },
    'server.forward.clientCidrs[0]',
    'CIDR',
  ],
  [
    'rate limit slip out of range',
    { ...valid, server: { rateLimit: { slip: 11 } } },
    'server.rateLimit.slip',
    'from 0 to 10',
  ],
  [
    'query log sampling not a whole number',
    { ...valid, server: { queryLogEvery: 2.5 } },
    'server.queryLogEvery',
    'from 0 to 1000000',
  ],
  [
    'identity longer than one TXT string',
    { ...valid, server: { identity: { name: 'x'.repeat(256) } } },
    'server.identity.name',
    '1-255 bytes',
  ],
  [
    'TCP connection bound of 0',
    { ...valid, server: { maxTcpConnections: 0 } },
    'server.maxTcpConnections',
    'from 1 to 1000000',
  ],
  [
    'CPU quantity',
    { ...valid, server: { resources: { requests: { cpu: '100 millicores' } } } },
    'server.resources.requests.cpu',
    '"100m"',
  ],
  [
    'memory quantity',
    { ...valid, etcd: { resources: { limits: { memory: '1GB' } } } },
    'etcd.resources.limits.memory',
    '"128Mi"',
  ],
  [
    'ephemeral-storage quantity',
    { ...valid, controller: { resources: { limits: { ephemeralStorage: '1 GB' } } } },
    'controller.resources.limits.ephemeralStorage',
    '"64Mi"',
  ],
  [
    'controller anti-affinity',
    { ...valid, controller: { replicas: 2, antiAffinity: 'always' as 'required' } },
    'controller.antiAffinity',
    '"required", "preferred", "none"',
  ],
  ['/tmp size limit', { ...valid, server: { tmpSizeLimit: 'big' } }, 'server.tmpSizeLimit', '"64Mi"'],
  ['snapshot size limit', { ...valid, server: { snapshotSizeLimit: '-1Mi' } }, 'server.snapshotSizeLimit', '"64Mi"'],
  [
    'root user',
    { ...valid, controller: { securityContext: { runAsUser: 0 } } },
    'controller.securityContext.runAsUser',
    'non-root user id',
  ],
  [
    'selector label override',
    { ...valid, server: { labels: { 'app.kubernetes.io/component': 'x' } } },
    'server.labels',
    'fixed selector',
  ],
  ['bad label value', { ...valid, etcd: { labels: { team: 'dns team' } } }, 'etcd.labels.team', '63 or fewer'],
  ['storage size', { ...valid, etcd: { storage: { size: '10 gigs' } } }, 'etcd.storage.size', '"8Gi"'],
  [
    'compaction mode',
    { ...valid, etcd: { compaction: { mode: 'daily' as 'periodic' } } },
    'etcd.compaction.mode',
    '"periodic", "revision"',
  ],
  [
    'revision retention not a number',
    { ...valid, etcd: { compaction: { mode: 'revision', retention: '1h' } } },
    'etcd.compaction.retention',
    'number of revisions',
  ],
  [
    'quota above 8 GiB',
    { ...valid, etcd: { quotaBackendBytes: 16 * 2 ** 30 } },
    'etcd.quotaBackendBytes',
    'from 1048576 to 8589934592',
  ],
  [
    'TLS secret name invalid',
    { ...valid, etcd: { tls: { serverSecret: 'Server TLS', clientSecret: 'c' } } },
    'etcd.tls.serverSecret',
    'lower-case letters',
  ],
  [
    'auth password without key',
    { ...valid, etcd: { auth: { password: { name: 'etcd-auth', key: '' } } } },
    'etcd.auth.password',
    'existing Secret key',
  ],
  [
    'anti-affinity mode',
    { ...valid, etcd: { antiAffinity: 'always' as 'required' } },
    'etcd.antiAffinity',
    '"required", "preferred", "none"',
  ],
  ['server drain negative', { ...valid, server: { drainSeconds: -1 } }, 'server.drainSeconds', 'from 0 to 120'],
  ['server drain fractional', { ...valid, server: { drainSeconds: 2.5 } }, 'server.drainSeconds', 'from 0 to 120'],
  ['server drain above 120 s', { ...valid, server: { drainSeconds: 600 } }, 'server.drainSeconds', 'from 0 to 120'],
  [
    'server drain maximum of 0',
    { ...valid, server: { drainMaxSeconds: 0 } },
    'server.drainMaxSeconds',
    'from 1 to 600',
  ],
  [
    'image pull policy',
    { ...valid, etcd: { imagePullPolicy: 'Sometimes' as 'Never' } },
    'etcd.imagePullPolicy',
    '"Always", "IfNotPresent", "Never"',
  ],
  [
    'cluster domain with a trailing dot',
    { ...valid, clusterDomain: 'cluster.local.' },
    'clusterDomain',
    '"-" (and ".")',
  ],
  ['cluster domain upper-case', { ...valid, clusterDomain: 'Cluster.Local' }, 'clusterDomain', 'lower-case'],
  ['controller replicas', { ...valid, controller: { replicas: 11 } }, 'controller.replicas', 'from 1 to 10'],
  ['resync zero', { ...valid, controller: { resyncSeconds: 0 } }, 'controller.resyncSeconds', 'from 1 to 86400'],
  [
    'log level',
    { ...valid, controller: { logLevel: 'verbose' as 'debug' } },
    'controller.logLevel',
    '"debug", "info", "warn", "error"',
  ],
  [
    'source kind',
    { ...valid, sources: { kinds: ['service', 'gateway' as 'ingress'] } },
    'sources.kinds[1]',
    '"service", "ingress"',
  ],
  ['no source kinds', { ...valid, sources: { kinds: [] } }, 'sources.kinds', '"gateway-httproute"'],
  [
    'gateway label filter',
    { ...valid, sources: { kinds: ['gateway-httproute'], gatewayLabelFilter: 'a in b' } },
    'sources.gatewayLabelFilter',
    'selector requirement',
  ],
  [
    'managed record type',
    { ...valid, sources: { managedRecordTypes: ['A', 'CAA' as 'A'] } },
    'sources.managedRecordTypes[1]',
    '"A", "AAAA", "CNAME", "TXT", "MX", "SRV", "PTR", "NS"',
  ],
  [
    'an fqdn template construct etcdns does not run',
    { ...valid, sources: { fqdnTemplate: ['{{ .Name }}.example.org', '{{ template "x" }}'] } },
    'sources.fqdnTemplate',
    `--fqdn-template[1] "{{ template \\"x\\" }}": 'template' is not supported`,
  ],
  [
    'an unstructured resource without a version',
    { ...valid, sources: { unstructuredResources: ['configmaps'] } },
    'sources.unstructuredResources',
    'expected resource.version.group',
  ],
  [
    'records without the crd source',
    { ...valid, records: [{ name: 'a.example.org', type: 'A', targets: ['192.0.2.1'] }] },
    'records',
    'need "crd" in sources.kinds',
  ],
  [
    'a record the controller would refuse',
    {
      ...valid,
      sources: { kinds: ['crd'] },
      records: [{ name: 'example.org', type: 'MX', targets: ['mail.example.org'] }],
    },
    'records[0]',
    '"<preference 0-65535> <exchange>"',
  ],
  [
    'a record type etcdns cannot publish',
    { ...valid, sources: { kinds: ['crd'] }, records: [{ name: 'example.org', type: 'CAA' as 'TXT', targets: ['x'] }] },
    'records[0].type',
    'A, AAAA, CNAME, TXT, MX, SRV, PTR, NS',
  ],
  [
    'a record ttl',
    {
      ...valid,
      sources: { kinds: ['crd'] },
      records: [{ name: 'a.example.org', type: 'A', targets: ['192.0.2.1'], ttl: 0 }],
    },
    'records[0].ttl',
    'from 1 to 2147483647',
  ],
  [
    'two records of one name and type',
    {
      ...valid,
      sources: { kinds: ['crd'] },
      records: [
        { name: 'a.example.org', type: 'A', targets: ['192.0.2.1'] },
        { name: 'A.example.org.', type: 'A', targets: ['192.0.2.2'] },
      ],
    },
    'records[1]',
    'list all targets of a name and type in one record',
  ],
  [
    'exclude domain invalid',
    { ...valid, sources: { excludeDomains: ['-bad.org'] } },
    'sources.excludeDomains[0]',
    'domain name',
  ],
  [
    'ownership policy',
    { ...valid, ownership: { policy: 'delete-all' as 'sync' } },
    'ownership.policy',
    '"sync", "upsert-only", "create-only"',
  ],
  ['owner id', { ...valid, ownership: { ownerId: 'owner id' } }, 'ownership.ownerId', '1-63 letters'],
  [
    'metrics port privileged',
    { ...valid, observability: { metricsPort: 80 } },
    'observability.metricsPort',
    'unprivileged port from 1024 to 65535',
  ],
  [
    'metrics port is the DNS port',
    { ...valid, observability: { metricsPort: 5353 } },
    'observability.metricsPort',
    'must not be 5353',
  ],
  [
    'ServiceMonitor interval',
    { ...valid, observability: { serviceMonitor: { enabled: true, interval: 'often' } } },
    'observability.serviceMonitor.interval',
    '"30s"',
  ],
  [
    'cert-manager issuer kind',
    {
      ...valid,
      etcd: {
        tls: { serverSecret: 's', clientSecret: 'c', certManager: { issuerName: 'ca', issuerKind: 'CA' as 'Issuer' } },
      },
    },
    'etcd.tls.certManager.issuerKind',
    '"Issuer", "ClusterIssuer"',
  ],
  [
    'cert-manager with custom key names',
    {
      ...valid,
      etcd: { tls: { serverSecret: 's', clientSecret: 'c', caKey: 'root.pem', certManager: { issuerName: 'ca' } } },
    },
    'etcd.tls.caKey',
    'cert-manager writes ca.crt',
  ],
  [
    'cert-manager duration',
    {
      ...valid,
      etcd: { tls: { serverSecret: 's', clientSecret: 'c', certManager: { issuerName: 'ca', duration: '90 days' } } },
    },
    'etcd.tls.certManager.duration',
    '"2160h"',
  ],
  [
    'ExternalSecret without a remote key',
    {
      ...valid,
      etcd: {
        auth: { password: { name: 'creds', key: 'password' }, externalSecret: { storeName: 'vault', remoteKey: '' } },
      },
    },
    'etcd.auth.externalSecret.remoteKey',
    'the key of the password in the external store',
  ],
  [
    'ExternalSecret store kind',
    {
      ...valid,
      etcd: {
        auth: {
          password: { name: 'creds', key: 'p' },
          externalSecret: { storeName: 'vault', storeKind: 'Vault' as 'SecretStore', remoteKey: 'k' },
        },
      },
    },
    'etcd.auth.externalSecret.storeKind',
    '"SecretStore", "ClusterSecretStore"',
  ],
];

for (const [what, props, field, allowed] of cases) {
  test(`rejected: ${what}`, () => {
    assert.throws(
      () => build(props),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
        const line = error.problems.find((p) => p.startsWith(`${field}: `));
        assert.ok(line, `a problem naming ${field}, got:\n${error.message}`);
        assert.ok(line.includes(allowed), `"${line}" says what is allowed ("${allowed}")`);
        return true;
      },
    );
  });
}

test('a chart-level namespace is refused: it would land on cluster-scoped objects', () => {
  const chart = new Chart(new App(), 'test', { disableResourceNameHashes: true, namespace: 'dns' });
  assert.throws(
    () => new DnsStack(chart, 'stack', valid),
    /chart's namespace \("dns"\): must not be set; use namespace\.name/,
  );
});

test('every problem is reported at once', () => {
  assert.throws(
    () => build({ zones: [{ name: 'bad..org', defaultTtl: -1 }], etcd: { replicas: 2 } }),
    (error: unknown) =>
      error instanceof ConfigError &&
      ['zones[0].name', 'zones[0].defaultTtl', 'etcd.replicas'].every((f) =>
        error.problems.some((p) => p.startsWith(`${f}: `)),
      ),
  );
});

test('the example environments and the minimal props are valid', () => {
  for (const props of [valid, dev, prod]) assert.doesNotThrow(() => build(props));
});

test('valid edge values are accepted', () => {
  const edges: DnsStackProps[] = [
    {
      zones: [
        { name: 'a.org', defaultTtl: 1 },
        { name: 'b.org.', defaultTtl: 2 ** 31 - 1 },
      ],
    },
    { ...valid, etcd: { replicas: 9 } },
    // SOA timers may be 0, as in the server's own config.
    { zones: [{ name: 'a.org', soa: { refresh: 0, retry: 0, expire: 0, minimum: 0 } }] },
    { ...valid, controller: { resyncSeconds: 1 } },
    { ...valid, server: { drainSeconds: 0 } },
    { ...valid, server: { drainSeconds: 120 } },
    { ...valid, clusterDomain: 'k8s.example.net', etcd: { imagePullPolicy: 'Never' } },
    { ...valid, views: [{ name: 'internal', prefix: '/skydns/' }] },
    { ...valid, views: [{ name: 'internal', zones: ['EXAMPLE.org.'], prefix: '/dns/internal' }] },
    {
      ...valid,
      server: { image: { repository: 'localhost:5000/etcdns', tag: '0.1.0', digest: `sha256:${'a'.repeat(64)}` } },
    },
    {
      ...valid,
      server: { service: { ipFamilies: ['IPv6', 'IPv4'], loadBalancerIP: 'fd00::53', externalTrafficPolicy: 'Local' } },
    },
    {
      ...valid,
      server: {
        forward: {
          upstreams: ['1.1.1.1', '9.9.9.9:53', '[2001:db8::1]:53', '2001:db8::2'],
          clientCidrs: ['10.0.0.0/8', 'fd00::/8'],
        },
      },
    },
  ];
  for (const props of edges) assert.doesNotThrow(() => build(props));
});
