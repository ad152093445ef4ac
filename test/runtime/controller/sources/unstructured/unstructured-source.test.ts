// Table tests of the unstructured source (sources/unstructured/): objects of any kind and the
// template flags in, records and problems out. Rows from external-dns v0.22's
// source/unstructured_test.go and unstructured_fqdn_test.go (names lower-cased: ours are), and
// the rules of etcdns where it differs (a template failing on one object is that object's problem).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { addDiscoveredKinds, ruleKindKnown, type ObjectKind } from '../../../../../src/config/source-kinds.ts';
import { resourceId } from '../../../../../src/runtime/controller/desired-record.ts';
import { sourceRecords } from '../../../../../src/runtime/controller/incremental/object-records.ts';
import { snapshotContext } from '../../../../support/full-pipeline.ts';
import type { TemplateObject } from '../../../../../src/runtime/controller/fqdn/template-data.ts';
import { sourceOptions } from '../../../../../src/runtime/controller/sources/source-options.ts';
import { parseUnstructuredResource } from '../../../../../src/config/unstructured-resource.ts';
import type { SourceResult } from '../../../../../src/runtime/controller/sources/record-builder.ts';

const N = 'external-dns.kubernetes.io/';

interface Row {
  name: string;
  flags: {
    fqdnTemplate?: string;
    targetTemplate?: string;
    fqdnTargetTemplate?: string;
    combine?: boolean;
    labelSelector?: string;
    annotationFilter?: string;
  };
  obj: TemplateObject;
  /** "name TYPE target [ttl]" */
  want: string[];
  problems?: RegExp[];
}

const vmi = (
  status: Record<string, unknown>,
  meta: Partial<NonNullable<TemplateObject['metadata']>> = {},
): TemplateObject => ({
  apiVersion: 'kubevirt.io/v1',
  kind: 'VirtualMachineInstance',
  metadata: { name: 'my-vm', namespace: 'default', ...meta },
  status,
});

const ROWS: Row[] = [
  {
    name: 'ConfigMap with comma-separated hostnames',
    flags: { fqdnTemplate: '{{index .Object.data "hostnames"}}', targetTemplate: '{{index .Object.data "target"}}' },
    obj: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'multi-dns', namespace: 'default' },
      data: { hostnames: 'entry1.internal.tld,entry2.example.tld', target: '10.10.10.10' },
    },
    want: ['entry1.internal.tld. A 10.10.10.10', 'entry2.example.tld. A 10.10.10.10'],
  },
  {
    name: 'with IP address',
    flags: {
      fqdnTemplate: '{{.Name}}.{{index .Status.interfaces 0 "name"}}.vmi.com',
      targetTemplate: '{{index .Status.interfaces 0 "ipAddress"}}',
    },
    obj: vmi({ interfaces: [{ ipAddress: '10.244.1.50', name: 'main' }] }),
    want: ['my-vm.main.vmi.com. A 10.244.1.50'],
  },
  {
    name: 'Crossplane RDSInstance with endpoint (CNAME)',
    flags: { fqdnTemplate: '{{.Name}}.db.example.com', targetTemplate: '{{.Status.atProvider.endpoint.address}}' },
    obj: {
      kind: 'RDSInstance',
      metadata: { name: 'prod-postgres', namespace: 'default' },
      status: { atProvider: { endpoint: { address: 'prod-postgres.abc123.us-east-1.rds' } } },
    },
    want: ['prod-postgres.db.example.com. CNAME prod-postgres.abc123.us-east-1.rds.'],
  },
  {
    name: 'multiple hosts from template',
    flags: { fqdnTemplate: '{{.Name}}.mesh.com,{{.Name}}.internal.com', targetTemplate: '{{index .Spec.hosts 0}}' },
    obj: {
      kind: 'ProxyService',
      metadata: { name: 'reviews', namespace: 'default' },
      spec: { hosts: ['promo.svc.local'] },
    },
    want: ['reviews.internal.com. CNAME promo.svc.local.', 'reviews.mesh.com. CNAME promo.svc.local.'],
  },
  {
    name: 'with ttl annotation set',
    flags: {
      fqdnTemplate: '{{index .Labels "app.kubernetes.io/instance"}}.apps.com',
      targetTemplate: '{{.Status.loadBalancer}}',
    },
    obj: {
      kind: 'Application',
      metadata: {
        name: 'guestbook',
        namespace: 'ns',
        labels: { 'app.kubernetes.io/instance': 'guestbook-prod' },
        annotations: { [`${N}ttl`]: '300' },
      },
      status: { loadBalancer: 'lb.example.com' },
    },
    want: ['guestbook-prod.apps.com. CNAME lb.example.com. 300'],
  },
  {
    name: 'Kind in the name: lower-cased',
    flags: { fqdnTemplate: '{{.Name}}.{{.Kind}}.example.com', targetTemplate: '{{.Status.target}}' },
    obj: vmi({ target: '192.168.1.10' }, { name: 'web-server' }),
    want: ['web-server.virtualmachineinstance.example.com. A 192.168.1.10'],
  },
  {
    name: 'combined annotations and template',
    flags: {
      fqdnTemplate: '{{.Name}}.template.example.com',
      targetTemplate: '{{index .Status.interfaces 0 "ipAddress"}}',
      combine: true,
    },
    obj: vmi(
      { interfaces: [{ ipAddress: '10.244.1.50' }] },
      { annotations: { [`${N}hostname`]: 'my-vm.annotation.example.com', [`${N}target`]: '192.168.1.100' } },
    ),
    want: ['my-vm.annotation.example.com. A 192.168.1.100', 'my-vm.template.example.com. A 10.244.1.50'],
  },
  {
    name: 'annotations without combine keep the template out',
    flags: { fqdnTemplate: '{{.Name}}.template.example.com', targetTemplate: '10.0.0.1' },
    obj: vmi({}, { annotations: { [`${N}hostname`]: 'a.example.com', [`${N}target`]: '192.168.1.100' } }),
    want: ['a.example.com. A 192.168.1.100'],
  },
  {
    name: 'read from annotations with IPv6 target, no template',
    flags: {},
    obj: vmi({}, { annotations: { [`${N}hostname`]: 'v6.example.com', [`${N}target`]: '2001:db8::1' } }),
    want: ['v6.example.com. AAAA 2001:db8::1'],
  },
  {
    name: 'a hostname annotation without a target publishes nothing',
    flags: {},
    obj: vmi({}, { annotations: { [`${N}hostname`]: 'v6.example.com' } }),
    want: [],
  },
  {
    name: 'controller annotation of another controller',
    flags: {},
    obj: vmi(
      {},
      {
        annotations: {
          [`${N}hostname`]: 'my-vm.redis.tld',
          [`${N}target`]: '10.10.10.0',
          [`${N}controller`]: 'custom-controller',
        },
      },
    ),
    want: [],
  },
  {
    name: 'controller annotation dns-controller',
    flags: {},
    obj: vmi(
      {},
      {
        annotations: {
          [`${N}hostname`]: 'my-vm.redis.tld',
          [`${N}target`]: '1.1.1.0',
          [`${N}controller`]: 'dns-controller',
        },
      },
    ),
    want: ['my-vm.redis.tld. A 1.1.1.0'],
  },
  {
    name: 'labelSelector matches',
    flags: { fqdnTemplate: '{{.Name}}.example.com', targetTemplate: '10.0.0.1', labelSelector: 'env=prod' },
    obj: vmi({}, { labels: { env: 'prod' } }),
    want: ['my-vm.example.com. A 10.0.0.1'],
  },
  {
    name: 'labelSelector no match',
    flags: { fqdnTemplate: '{{.Name}}.example.com', targetTemplate: '10.0.0.1', labelSelector: 'env=prod' },
    obj: vmi({}, { labels: { env: 'dev' } }),
    want: [],
  },
  {
    name: 'annotationFilter matches',
    flags: { fqdnTemplate: '{{.Name}}.example.com', targetTemplate: '10.0.0.1', annotationFilter: 'team=a' },
    obj: vmi({}, { annotations: { team: 'a' } }),
    want: ['my-vm.example.com. A 10.0.0.1'],
  },
  {
    name: 'annotationFilter no match',
    flags: { fqdnTemplate: '{{.Name}}.example.com', targetTemplate: '10.0.0.1', annotationFilter: 'team=a' },
    obj: vmi({}, { annotations: { team: 'b' } }),
    want: [],
  },
  {
    name: "per-pod pairs (external-dns's EndpointSlice example, on a kind of our own: see the last test)",
    flags: {
      fqdnTargetTemplate:
        '{{if and (eq .Kind "PodEndpoints") (hasKey .Labels "service.kubernetes.io/headless")}}{{range $ep := .Object.endpoints}}{{if $ep.conditions.ready}}{{range $ep.addresses}}{{$ep.targetRef.name}}.pod.com:{{.}},{{end}}{{end}}{{end}}{{end}}',
    },
    obj: {
      apiVersion: 'example.org/v1',
      kind: 'PodEndpoints',
      metadata: { name: 'test-headless-abc12', namespace: 'default', labels: { 'service.kubernetes.io/headless': '' } },
      endpoints: [
        { addresses: ['10.244.1.2', '2001:db8::1'], conditions: { ready: true }, targetRef: { name: 'app-abc12' } },
        { addresses: ['10.244.2.3', '10.244.2.4'], conditions: { ready: true }, targetRef: { name: 'app-def34' } },
      ],
    },
    want: [
      'app-abc12.pod.com. A 10.244.1.2',
      'app-abc12.pod.com. AAAA 2001:db8::1',
      'app-def34.pod.com. A 10.244.2.3',
      'app-def34.pod.com. A 10.244.2.4',
    ],
  },
  {
    name: 'pairs without combine keep --fqdn-template out',
    flags: {
      fqdnTargetTemplate: '{{.Name}}.pairs.example.com:10.0.0.1',
      fqdnTemplate: '{{.Name}}.vmi.example.com',
      targetTemplate: '10.0.0.2',
    },
    obj: vmi({}),
    want: ['my-vm.pairs.example.com. A 10.0.0.1'],
  },
  {
    name: 'both fqdnTargetTemplate and fqdnTemplate set, combined',
    flags: {
      fqdnTargetTemplate:
        '{{range $iface := .Status.interfaces}}{{$.Name}}-{{index $iface "name"}}.ifaces.example.com:{{index $iface "ipAddress"}},{{end}}',
      fqdnTemplate: '{{.Name}}.vmi.example.com',
      targetTemplate: '{{index .Status.interfaces 0 "ipAddress"}}',
      combine: true,
    },
    obj: vmi({
      interfaces: [
        { name: 'eth0', ipAddress: '10.244.1.50' },
        { name: 'eth1', ipAddress: '192.168.1.50' },
      ],
    }),
    want: [
      'my-vm-eth0.ifaces.example.com. A 10.244.1.50',
      'my-vm-eth1.ifaces.example.com. A 192.168.1.50',
      'my-vm.vmi.example.com. A 10.244.1.50',
    ],
  },
  {
    name: 'a template failing on the object is its problem; its annotations still publish',
    flags: {
      fqdnTemplate: '{{.Name}}.example.com',
      targetTemplate: '{{index .Status.interfaces 0 "ipAddress"}}',
      combine: true,
    },
    obj: vmi({}, { annotations: { [`${N}hostname`]: 'a.example.com', [`${N}target`]: '10.1.1.1' } }),
    want: ['a.example.com. A 10.1.1.1'],
    problems: [
      /^--target-template: error calling index: index of untyped nil; the names of --fqdn-template are skipped$/,
    ],
  },
  {
    name: 'a name the template makes invalid is reported and skipped',
    flags: { fqdnTemplate: '{{.Spec.missing}}.example.com,{{.Name}}.example.com', targetTemplate: '10.0.0.1' },
    obj: vmi({}),
    want: ['my-vm.example.com. A 10.0.0.1'],
    problems: [/^hostname "<no value>.example.com" has invalid label/],
  },
  {
    name: 'a target the template makes invalid is reported and skipped',
    flags: { fqdnTemplate: '{{.Name}}.example.com', targetTemplate: '10.0.0.1,{{.Spec.missing}}' },
    obj: vmi({}),
    want: ['my-vm.example.com. A 10.0.0.1'],
    problems: [/^target "<no value>" is neither/],
  },
  {
    name: 'no target template: no records for template names',
    flags: { fqdnTemplate: '{{.Name}}.example.com' },
    obj: vmi({}),
    want: [],
  },
];

const format = (out: SourceResult) =>
  out.records.map((r) => `${r.name} ${r.type} ${r.target}${r.ttl !== undefined ? ` ${r.ttl}` : ''}`).sort();

/** The kinds of the rows, as discovery would name them for these --unstructured-resource values. */
const DISCOVERED = [
  ['configmaps.v1', 'ConfigMap', '', 'v1', 'configmaps'],
  ['virtualmachineinstances.v1.kubevirt.io', 'VirtualMachineInstance', 'kubevirt.io', 'v1', 'virtualmachineinstances'],
  ['rdsinstances.v1alpha1.rds.aws.crossplane.io', 'RDSInstance', 'rds.aws.crossplane.io', 'v1alpha1', 'rdsinstances'],
  [
    'proxyservices.v1beta1.proxyconfigs.acme.corp',
    'ProxyService',
    'proxyconfigs.acme.corp',
    'v1beta1',
    'proxyservices',
  ],
  ['applications.v1alpha1.argoproj.io', 'Application', 'argoproj.io', 'v1alpha1', 'applications'],
  ['podendpoints.v1.example.org', 'PodEndpoints', 'example.org', 'v1', 'podendpoints'],
] as const;
assert.deepEqual(
  addDiscoveredKinds(
    'unstructured',
    DISCOVERED.map(([value, kind, group, version, resource]) => ({
      value,
      kind,
      api: { group, versions: [version], resource, namespaced: true },
    })),
  ),
  [],
);

for (const row of ROWS) {
  test(`unstructured: ${row.name}`, () => {
    const options = sourceOptions({
      sources: ['unstructured'],
      unstructuredResources: DISCOVERED.map(([value]) => value),
      ...(row.flags.fqdnTemplate ? { fqdnTemplate: [row.flags.fqdnTemplate] } : {}),
      ...(row.flags.targetTemplate ? { targetTemplate: [row.flags.targetTemplate] } : {}),
      ...(row.flags.fqdnTargetTemplate ? { fqdnTargetTemplate: [row.flags.fqdnTargetTemplate] } : {}),
      combineFqdnAnnotation: row.flags.combine ?? false,
      ...(row.flags.labelSelector ? { labelSelector: row.flags.labelSelector } : {}),
      ...(row.flags.annotationFilter ? { annotationFilter: row.flags.annotationFilter } : {}),
    });
    // As the informers list them: without kind and apiVersion (built-in kinds' list items lack them).
    const { kind, apiVersion: _apiVersion, ...listed } = row.obj;
    const out = sourceRecords(
      { kind: kind as ObjectKind, object: listed as KubernetesObject },
      snapshotContext({}),
      options,
    );
    assert.deepEqual(format(out), [...row.want].sort());
    assert.equal(out.problems.length, (row.problems ?? []).length, JSON.stringify(out.problems));
    out.problems.forEach((p, i) => assert.match(p.message, row.problems![i]!));
    for (const r of out.records)
      assert.equal(
        resourceId(r.object),
        `${kind!.toLowerCase()}/${row.obj.metadata!.namespace}/${row.obj.metadata!.name}`,
      );
  });
}

test('a kind another source reads already is refused, naming the value', () => {
  assert.deepEqual(
    addDiscoveredKinds('unstructured', [
      {
        value: 'endpointslices.v1.discovery.k8s.io',
        kind: 'EndpointSlice',
        api: { group: 'discovery.k8s.io', versions: ['v1'], resource: 'endpointslices', namespaced: true },
      },
    ]),
    [
      '--unstructured-resource endpointslices.v1.discovery.k8s.io: kind EndpointSlice is read by the other sources already',
    ],
  );
});

test('a cluster-scoped kind keeps an empty namespace in its resource id ("kind//name"), as external-dns writes it', () => {
  const value = 'clusterissuers.v1.cert-manager.io';
  const api = { group: 'cert-manager.io', versions: ['v1'], resource: 'clusterissuers', namespaced: false };
  assert.deepEqual(addDiscoveredKinds('unstructured', [{ value, kind: 'ClusterIssuer', api }]), []);
  const annotations = { [`${N}hostname`]: 'ca.example.org', [`${N}target`]: '10.0.0.9' };
  const out = sourceRecords(
    { kind: 'ClusterIssuer' as ObjectKind, object: { metadata: { name: 'acme', annotations } } },
    snapshotContext({}),
    sourceOptions({ sources: ['unstructured'], unstructuredResources: [value] }),
  );
  assert.deepEqual(
    out.records.map((r) => [r.name, r.object.namespace, resourceId(r.object)]),
    [['ca.example.org.', '', 'clusterissuer//acme']],
  );
});

test('view rules may name the kinds discovery named, in lower case; other kinds stay unknown', () => {
  assert.equal(ruleKindKnown('virtualmachineinstance'), true);
  assert.equal(ruleKindKnown('rdsinstance'), true);
  assert.equal(ruleKindKnown('service'), true);
  assert.equal(ruleKindKnown('virtualmachine'), false);
  assert.equal(ruleKindKnown('VirtualMachineInstance'), false);
});

const RESOURCES: [string, string | RegExp][] = [
  ['virtualmachineinstances.v1.kubevirt.io', 'kubevirt.io/v1 virtualmachineinstances'],
  ['rdsinstances.v1alpha1.rds.aws.crossplane.io', 'rds.aws.crossplane.io/v1alpha1 rdsinstances'],
  ['configmaps.v1', '/v1 configmaps'],
  ['configmaps.v1.', '/v1 configmaps'],
  ['configmaps', /has no version/],
  ['ConfigMaps.v1', /is not a lower-case resource name/],
  ['configmaps..x', /version "" is not a version/],
];
for (const [value, want] of RESOURCES) {
  test(`--unstructured-resource ${value}`, () => {
    const parsed = parseUnstructuredResource(value);
    if (typeof want === 'string') {
      assert.ok(parsed.ok);
      assert.equal(`${parsed.api.group}/${parsed.api.versions[0]} ${parsed.api.resource}`, want);
    } else {
      assert.equal(parsed.ok, false);
      assert.match(parsed.ok ? '' : parsed.error, want);
    }
  });
}
