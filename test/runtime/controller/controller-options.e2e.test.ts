// The controller's configuration: flags > environment > file, and errors that name the field.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SOURCE_KINDS } from '../../../src/config/source-kinds.ts';
import { controllerUsage, parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';
import { sourceOptions } from '../../../src/runtime/controller/sources/source-options.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';

const base = ['--etcd', 'http://127.0.0.1:2379', '--owner-id', 'me'];

test('defaults', () => {
  const { config, once, dryRun } = parseControllerOptions(base, {});
  assert.deepEqual(config, {
    etcd: { endpoints: ['http://127.0.0.1:2379'] },
    ownerId: 'me',
    prefix: '/skydns',
    sources: ['service', 'ingress'],
    policy: 'sync',
    resyncSeconds: 300,
    debounceMs: 5,
    httpListen: { host: '0.0.0.0', port: 8080 },
    logLevel: 'info',
  });
  assert.deepEqual([once, dryRun], [false, false]);
});

test("a spoke's --cluster writes under the cluster's own prefix", () => {
  const { config } = parseControllerOptions([...base, '--cluster', 'dc1'], {});
  assert.equal(config.cluster, 'dc1');
  assert.equal(config.prefix, '/skydns-clusters/dc1');
});

test("external-dns's source flags carry over unchanged", () => {
  const { config } = parseControllerOptions(
    [
      ...base,
      '--source=gateway-httproute',
      '--source=gateway-grpcroute',
      '--source=crd',
      '--gateway-name=public',
      '--gateway-namespace=infra',
      '--gateway-label-filter=expose=yes',
      '--gateway-listener-sets',
      '--crd-source-apiversion=externaldns.k8s.io/v1alpha1',
      '--crd-source-kind=DNSEndpoint',
      '--managed-record-types=A',
      '--managed-record-types=AAAA',
      '--managed-record-types=TXT',
    ],
    {},
  );
  assert.deepEqual(
    {
      sources: config.sources,
      gatewayName: config.gatewayName,
      gatewayNamespace: config.gatewayNamespace,
      gatewayLabelFilter: config.gatewayLabelFilter,
      gatewayListenerSets: config.gatewayListenerSets,
      managedRecordTypes: config.managedRecordTypes,
    },
    {
      sources: ['gateway-httproute', 'gateway-grpcroute', 'crd'],
      gatewayName: 'public',
      gatewayNamespace: 'infra',
      gatewayLabelFilter: 'expose=yes',
      gatewayListenerSets: true,
      managedRecordTypes: ['A', 'AAAA', 'TXT'],
    },
  );
});

test("the template flags repeat and keep their commas, as external-dns's do", () => {
  const { config } = parseControllerOptions(
    [
      ...base,
      '--fqdn-template={{ range $k, $v := .Labels }}{{ $v }}.a.example,{{ end }}',
      '--fqdn-template',
      '{{ .Name }}.b.example',
      '--target-template={{ index .Object.data "target" }}',
      '--fqdn-target-template={{ .Name }}.c.example:10.0.0.1',
      '--combine-fqdn-annotation',
      '--unstructured-resource=configmaps.v1,virtualmachineinstances.v1.kubevirt.io',
    ],
    {},
  );
  assert.deepEqual(
    [
      config.fqdnTemplate,
      config.targetTemplate,
      config.fqdnTargetTemplate,
      config.combineFqdnAnnotation,
      config.unstructuredResources,
    ],
    [
      ['{{ range $k, $v := .Labels }}{{ $v }}.a.example,{{ end }}', '{{ .Name }}.b.example'],
      ['{{ index .Object.data "target" }}'],
      ['{{ .Name }}.c.example:10.0.0.1'],
      true,
      ['configmaps.v1', 'virtualmachineinstances.v1.kubevirt.io'],
    ],
  );
});

test("the edge sources' flags carry over unchanged, and reach the sources (defaults as external-dns v0.22)", () => {
  const edges = ['--source=openshift-route', '--source=node', '--source=pod'];
  const given = parseControllerOptions(
    [
      ...base,
      ...edges,
      '--openshift-router-name=internal',
      '--exclude-unschedulable=false',
      '--expose-internal-ipv6',
      '--pod-source-domain=pods.example.org',
      '--ignore-non-host-network-pods',
    ],
    {},
  ).config;
  const options = sourceOptions(given);
  assert.deepEqual(
    { router: options.openshiftRouterName, node: options.node, pod: options.pod },
    {
      router: 'internal',
      node: { excludeUnschedulable: false, exposeInternalIpv6: true },
      pod: { sourceDomain: 'pods.example.org', ignoreNonHostNetwork: true },
    },
  );
  const defaults = sourceOptions(parseControllerOptions([...base, ...edges], {}).config);
  assert.deepEqual(
    { router: defaults.openshiftRouterName, node: defaults.node, pod: defaults.pod },
    {
      router: undefined,
      node: { excludeUnschedulable: true, exposeInternalIpv6: false },
      pod: { ignoreNonHostNetwork: false },
    },
  );
});

test('flags beat environment, environment beats the file; lists repeat and split on commas', () => {
  const file = join(tmpdir(), `controller-config-${process.pid}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      etcd: { endpoints: ['http://file:2379'] },
      ownerId: 'from-file',
      policy: 'create-only',
      prefix: '/file',
      resyncSeconds: 60,
    }),
  );
  const { config, once, dryRun } = parseControllerOptions(
    [
      '--config',
      file,
      '--policy=upsert-only',
      '--domain-filter',
      'a.example.org,b.example.org',
      '--domain-filter',
      'c.example.org',
      '--once',
      '--dry-run',
      '--leader-elect',
      '--leader-election-namespace',
      'dns',
    ],
    { ETCDNS_POLICY: 'sync', ETCDNS_PREFIX: '/env/', ETCDNS_OWNER_ID: 'from-env', POD_NAME: 'pod-1' },
  );
  assert.equal(config.policy, 'upsert-only');
  assert.equal(config.prefix, '/env');
  assert.equal(config.ownerId, 'from-env');
  assert.equal(config.resyncSeconds, 60);
  assert.deepEqual(config.etcd.endpoints, ['http://file:2379']);
  assert.deepEqual(config.domainFilter, ['a.example.org', 'b.example.org', 'c.example.org']);
  assert.equal(config.leaderElection?.enabled, true);
  assert.equal(config.leaderElection?.namespace, 'dns');
  assert.equal(config.leaderElection?.leaseName, 'etcdns-controller');
  assert.deepEqual([once, dryRun], [true, true]);
});

const bad: [string, string[], Record<string, string>, RegExp][] = [
  ['no etcd', ['--owner-id', 'me'], {}, /^etcd: is required$/],
  [
    'etcd not a URL',
    ['--etcd', 'localhost:2379', '--owner-id', 'me'],
    {},
    /^etcd\.endpoints\[0\] \(--etcd-urls\): must be an etcd client URL, http\(s\):\/\/host:port \(got "localhost:2379"\)$/,
  ],
  ['no owner', ['--etcd', 'http://e:1'], {}, /^ownerId: is required$/],
  [
    'owner with quotes',
    ['--etcd', 'http://e:1', '--owner-id', 'a"b'],
    {},
    /^ownerId \(--owner-id\): must be 1-63 letters/,
  ],
  [
    'policy',
    [...base, '--policy', 'delete-all'],
    {},
    /^policy \(--policy\): must be one of "sync", "upsert-only", "create-only" \(got "delete-all"\)$/,
  ],
  [
    'source',
    // A name no source will take; the allowed values are the registry's, in its order.
    [...base, '--source', 'no-such-source'],
    {},
    new RegExp(
      `^sources\\[0\\] \\(--source\\): must be one of ${SOURCE_KINDS.map((k) => `"${k}"`).join(', ')} \\(got "no-such-source"\\)$`,
    ),
  ],
  [
    'domain',
    [...base, '--domain-filter', 'bad..org'],
    {},
    /^domainFilter\[0\] \(--domain-filter\): .*"bad\.\.org" has an empty label$/,
  ],
  [
    'selector',
    [...base, '--label-selector', 'app in web'],
    {},
    /^labelSelector \(--label-selector\): "app in web" is not a selector/,
  ],
  [
    'resync from env',
    base,
    { ETCDNS_RESYNC_SECONDS: 'soon' },
    /^resyncSeconds \(ETCDNS_RESYNC_SECONDS\): must be a number of seconds from 1 to 86400 \(got "soon"\)$/,
  ],
  [
    'bool',
    [...base, '--publish-cluster-ip=maybe'],
    {},
    /^publishClusterIp \(--publish-cluster-ip\): must be true or false/,
  ],
  [
    'bool of the node source',
    [...base, '--exclude-unschedulable=no'],
    {},
    /^excludeUnschedulable \(--exclude-unschedulable\): must be true or false/,
  ],
  [
    'pod source domain',
    [...base, '--pod-source-domain', 'bad_domain!'],
    {},
    /^podSourceDomain \(--pod-source-domain\): /,
  ],
  ['http listen', [...base, '--http-listen', '8080'], {}, /^httpListen \(--http-listen\): must be host:port/],
  ['lease namespace', [...base, '--leader-elect'], {}, /^leaderElection\.namespace: required/],
  ['unknown flag', [...base, '--zone', 'x'], {}, /^unknown flag --zone/],
  ['missing value', [...base, '--prefix'], {}, /^--prefix needs a value \(config field "prefix"\)$/],
  // Drift between the commands and the constructs, now one rule each.
  [
    'drift: an etcd URL with a path (anchored, as in the server)',
    ['--etcd', 'http://e:1/v3', '--owner-id', 'me'],
    {},
    /^etcd\.endpoints\[0\] \(--etcd-urls\): must be an etcd client URL/,
  ],
  [
    'drift: the owner id rule of the constructs',
    ['--etcd', 'http://e:1', '--owner-id', '-me'],
    {},
    /^ownerId \(--owner-id\): must be 1-63 letters/,
  ],
  [
    'drift: a zone-less prefix such as "/"',
    [...base, '--prefix', '/'],
    {},
    /^prefix \(--prefix\): must be an etcd key prefix/,
  ],
  [
    'a cluster name that is not one key segment',
    [...base, '--cluster', 'dc/1'],
    {},
    /^cluster \(--cluster\): must be a cluster name/,
  ],
  [
    'a cluster beside a prefix: it writes under its own',
    [...base, '--cluster', 'dc1', '--prefix', '/skydns'],
    {},
    /^cluster \(--cluster\): not together with prefix or views/,
  ],
  [
    "external-dns's crd source flags, other than the DNSEndpoint they name",
    [...base, '--source', 'crd', '--crd-source-apiversion', 'example.org/v1', '--crd-source-kind', 'DNSEndpoint'],
    {},
    /^--crd-source-apiversion: only externaldns\.k8s\.io\/v1alpha1 is read \(got "example\.org\/v1"\)$/,
  ],
  [
    'a record type etcdns cannot publish',
    [...base, '--managed-record-types', 'A,NAPTR'],
    {},
    /^managedRecordTypes\[1\] \(--managed-record-types\): must be one of "A", "AAAA", "CNAME", "TXT", "MX", "SRV", "PTR", "NS" \(got "NAPTR"\)$/,
  ],
  [
    'a template that does not parse, by the index of its value',
    [...base, '--fqdn-template', '{{ .Name }}.a.example', '--fqdn-template', '{{ .Name'],
    {},
    /^fqdnTemplate \(--fqdn-template\): --fqdn-template\[1\] "\{\{ \.Name": unclosed action$/,
  ],
  [
    'a template construct etcdns does not run',
    [...base, '--target-template', '{{ define "x" }}y{{ end }}'],
    {},
    /^targetTemplate \(--target-template\): --target-template\[0\] .*'define' is not supported$/,
  ],
  [
    'an unstructured resource without a version',
    [...base, '--unstructured-resource', 'configmaps'],
    {},
    /^unstructuredResources \(--unstructured-resource\): "configmaps" has no version/,
  ],
  [
    'drift: plan has no controller-only flags',
    [...base, '--leader-elect'],
    { PLAN: '1' },
    /^unknown flag --leader-elect \(see etcdns plan --help\)$/,
  ],
];
for (const [name, args, env, error] of bad) {
  test(`bad config fails naming the field: ${name}`, () => {
    const { PLAN, ...rest } = env;
    assert.throws(() => parseControllerOptions(args, rest, PLAN ? 'plan' : 'controller'), { message: error });
  });
}

const deprecated: [string, string, Record<string, string>][] = [
  ['ETCDNS_ETCD', 'ETCDNS_ETCD_URLS', { ETCDNS_ETCD: 'http://old:2379' }],
  ['ETCD_URLS', 'ETCDNS_ETCD_URLS', { ETCD_URLS: 'http://old:2379' }],
];
for (const [old, current, env] of deprecated) {
  test(`deprecated ${old} is still read, warning once with its new name ${current}`, () => {
    const warnings: string[] = [];
    const { config } = parseControllerOptions(['--owner-id', 'me'], env, 'controller', (m) => warnings.push(m));
    assert.deepEqual(config.etcd.endpoints, ['http://old:2379']);
    assert.deepEqual(warnings, [`${old} is deprecated; use ${current}`]);
  });
}

test('drift: the etcd password as a value (ETCDNS_ETCD_PASSWORD) works for the controller too', () => {
  const env = { ETCDNS_ETCD_USERNAME: 'dns', ETCDNS_ETCD_PASSWORD: 's3cret' };
  assert.deepEqual(parseControllerOptions(base, env).config.etcd.auth, { username: 'dns', password: 's3cret' });
});

test("--help is generated from each command's table; plan lists no controller-only flag", () => {
  const controller = controllerUsage('controller');
  const plan = controllerUsage('plan');
  for (const flag of [
    '--etcd-urls, --etcd URL[,URL]',
    '--owner-id ID',
    '[ETCDNS_ETCD_URLS; formerly ETCDNS_ETCD, ETCD_URLS]',
  ])
    for (const help of [controller, plan]) assert.ok(help.includes(flag), flag);
  for (const flag of [
    '--leader-elect',
    '--lease-name',
    '--lease-duration-seconds',
    '--once',
    '--dry-run',
    '--http-listen',
  ]) {
    assert.ok(controller.includes(`  ${flag}`), `controller lists ${flag}`);
    assert.ok(!plan.includes(`  ${flag}`), `plan does not list ${flag}`);
  }
  assert.ok(plan.includes('  --view NAME'));
});

test('a bad config file names the file', () => {
  const file = join(tmpdir(), `controller-bad-${process.pid}.json`);
  writeFileSync(file, '{"ownerId": ');
  assert.throws(() => parseControllerOptions(['--config', file], {}), {
    message: new RegExp(`^config file ${file}: `),
  });
  writeFileSync(file, JSON.stringify({ etcd: { endpoints: ['http://e:1'] }, ownerId: 'me', resyncSeconds: '5' }));
  assert.throws(() => parseControllerOptions(['--config', file], {}), {
    message: /^resyncSeconds \(file .*\): must be a number of seconds from 1 to 86400 \(got "5"\)$/,
  });
});

// [case, config file fields beside etcd and ownerId, error naming the field; none: accepted]
const claimRows: [string, object, RegExp | undefined][] = [
  [
    "a spoke's claims, one for some namespaces",
    { cluster: 'dc1', claims: [{ suffix: 'dc1.example.org' }, { suffix: 'shop.example.org', namespaces: ['shop'] }] },
    undefined,
  ],
  ['claims without a cluster', { claims: [{ suffix: 'dc1.example.org' }] }, /^claims \(file .*\): only with cluster/],
  [
    'a claim that is not a domain name',
    { cluster: 'dc1', claims: [{ suffix: 'dc1 example.org' }] },
    /^claims\[0\]\.suffix \(file .*\): /,
  ],
  [
    'a claim for a namespace that cannot be one',
    { cluster: 'dc1', claims: [{ suffix: 'dc1.example.org', namespaces: ['Shop'] }] },
    /^claims\[0\]\.namespaces\[0\] \(file .*\): must be a namespace/,
  ],
];
for (const [name, fields, error] of claimRows)
  test(`controller config: ${name}`, () => {
    const file = join(tempDir('controller-claims'), 'config.json');
    writeFileSync(file, JSON.stringify({ etcd: { endpoints: ['http://e:1'] }, ownerId: 'me', ...fields }));
    if (error) assert.throws(() => parseControllerOptions(['--config', file], {}), { message: error });
    else
      assert.deepEqual(
        parseControllerOptions(['--config', file], {}).config.claims,
        (fields as { claims: unknown }).claims,
      );
  });

test('leader election takes the pod identity from the environment it is given', () => {
  const env = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'etcdns' };
  const { config } = parseControllerOptions([...base, '--leader-elect'], env);
  assert.equal(config.leaderElection?.identity, 'etcdns-controller-7d9f-abcde');
  assert.equal(config.leaderElection?.namespace, 'etcdns');
  assert.throws(() => parseControllerOptions([...base, '--leader-elect'], {}), /leaderElection\.namespace/);
});

test('the commands refuse a bad flag or an unusable kubeconfig in one line naming it, exit code 2', () => {
  const dir = tempDir('bad-kubeconfig');
  writeFileSync(join(dir, 'config'), 'current-context: gone\n');
  const run = (args: string[]) => spawnSync(nodeBin, [etcdnsBin, ...args], { encoding: 'utf8', timeout: 20_000 });
  const common = ['--etcd', 'http://127.0.0.1:1', '--owner-id', 't'];
  for (const [args, message] of [
    [['controller', ...common, '--policy', 'nope'], /^etcdns controller: .*policy.*nope/],
    [
      ['controller', ...common, '--kubeconfig', join(dir, 'config')],
      /^etcdns controller: .*config: contexts has no entry named "gone"\n$/,
    ],
    [
      ['plan', ...common, '--kubeconfig', join(dir, 'missing')],
      /^etcdns plan: cannot read kubeconfig .*missing: ENOENT\n$/,
    ],
  ] as const) {
    const r = run([...args]);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
});
