// GitOps safety of the synthesized manifests.
//  - A kustomize `namespace:` overlay on each committed dist/<env> (the real `kubectl kustomize`)
//    moves the whole stack: no rendered object names the synthesized namespace any more (except
//    the full names cert-manager certificates keep beside the short ones), etcd's flags and every
//    etcd URL are namespace-relative names of rendered objects, RBAC subjects follow the
//    ServiceAccount, and the issued certificates still cover every name dialed.
//  - The emitted Namespace is protected from Argo CD's and Flux's pruning, unless opted out; the
//    DNSEndpoint CRD always.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';
import { STACK_DEFAULTS, type DnsStackProps } from '../../src/constructs/dns-stack.ts';
import { PRUNE_PROTECTION } from '../../src/constructs/base/gitops.ts';
import { ETCD_DEFAULTS } from '../../src/constructs/etcd/etcd-cluster.ts';
import { synthObjects } from '../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../src/environments/index.ts';
import { renderWithNamespace, type Rendered } from './kustomize-overlay.ts';

const MOVED = 'other-ns';
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);
// Maps of label values: the stack name lives there (and equals the default namespace, "etcdns").
const LABEL_MAPS = new Set(['labels', 'matchLabels', 'selector']);

interface Mention {
  object: string;
  path: string;
  value: string;
}

/**
 * Every string naming `namespace`: as the whole value or as a label of a host name
 * ("x.<ns>.svc", "x.<ns>:2379"). Object names and label values are the stack's name, not a
 * namespace, and are skipped; the runtime configs inside ConfigMaps are searched as JSON.
 */
function mentions(object: Rendered, namespace: string): Mention[] {
  const pattern = new RegExp(`(?:^|\\.)${namespace.replaceAll('.', '\\.')}(?:[.:/]|$)`);
  const found: Mention[] = [];
  const walk = (value: unknown, path: string[]): void => {
    if (typeof value === 'string') {
      if (path.at(-1) === 'config.json') return walk(JSON.parse(value), path);
      if (LABEL_MAPS.has(path.at(-2)!) || path.join('/') === 'metadata/name') return;
      if (pattern.test(value))
        found.push({ object: `${object.kind}/${object.metadata.name}`, path: path.join('/'), value });
    } else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) walk(child, [...path, key]);
  };
  walk(object, []);
  return found;
}

const find = (objects: Rendered[], kind: string, name?: string) =>
  objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
const one = (objects: Rendered[], kind: string, name?: string) => {
  const found = find(objects, kind, name);
  assert.equal(found.length, 1, `one ${kind}${name ? `/${name}` : ''}`);
  return found[0]!;
};
const urlParts = (url: string) => {
  const match = /^(https?):\/\/([^:/]+):(\d+)$/.exec(url);
  assert.ok(match, `${url} is scheme://host:port`);
  return { scheme: match[1]!, host: match[2]!, port: Number(match[3]) };
};

/** Go's crypto/x509 host name rule, which etcd applies to its peers: "*" stands for one label. */
function goCovers(pattern: string, host: string): boolean {
  const p = pattern.split('.');
  const h = host.split('.');
  return p.length === h.length && p.every((label, i) => label === h[i] || (i === 0 && label === '*'));
}
/** Node's check, which the DNS server and the controller apply to etcd. */
const nodeCovers = (dnsNames: string[], host: string) =>
  checkServerIdentity(host, {
    subject: {},
    subjectaltname: dnsNames.map((n) => `DNS:${n}`).join(', '),
  } as PeerCertificate) === undefined;

for (const [env, props] of Object.entries(ENVIRONMENTS)) {
  const original = props.namespace?.name ?? STACK_DEFAULTS.namespace;

  test(`${env}: a namespace overlay moves every object and leaves no reference to ${original}`, () => {
    assert.notEqual(original, MOVED);
    const objects = renderWithNamespace(env, MOVED);
    for (const o of objects)
      if (!CLUSTER_SCOPED.has(o.kind)) assert.equal(o.metadata.namespace, MOVED, `${o.kind}/${o.metadata.name}`);
    if (props.namespace?.create !== false) {
      const namespace = one(objects, 'Namespace');
      assert.equal(namespace.metadata.name, MOVED, 'kustomize renames the Namespace object');
      for (const [key, value] of Object.entries(PRUNE_PROTECTION))
        assert.equal(namespace.metadata.annotations[key], value, `the moved Namespace keeps ${key}`);
    }

    // The owner id and the etcd user (the client certificate's common name) are identities the
    // environment chose, not namespaces (staging's owner id and the hub's etcd user equal theirs).
    const etcdUser = props.etcd?.auth?.username ?? ETCD_DEFAULTS.username;
    const identity = (m: Mention) =>
      m.path.endsWith('/ownerId') ||
      (m.object.startsWith('Certificate/') && m.path === 'spec/commonName' && m.value === etcdUser);
    const found = objects.flatMap((o) => mentions(o, original)).filter((m) => !identity(m));
    // Kept on purpose: the full names of the synthesized namespace in certificates (beside the
    // short names the stack dials); a stack moved with TLS needs them reissued (docs/gitops.md, "Another namespace").
    const kept = found.filter((m) => m.object.startsWith('Certificate/') && m.path.startsWith('spec/dnsNames/'));
    assert.deepEqual(
      found.filter((m) => !kept.includes(m)),
      [],
    );
    for (const m of kept)
      assert.match(m.value, new RegExp(`\\.${original}(\\.svc(\\.cluster\\.local)?)?$`), 'only full names');
    if (!props.etcd?.tls?.certManager) assert.deepEqual(kept, []);

    // The detector finds the namespace where it is still set: in the synthesized objects.
    const synthesized = synthObjects(props) as Rendered[];
    assert.ok(synthesized.flatMap((o) => mentions(o, original)).some((m) => m.path === 'metadata/namespace'));
  });

  test(`${env}: after the overlay, etcd's flags and every etcd URL are namespace-relative names of rendered objects`, () => {
    const objects = renderWithNamespace(env, MOVED);
    const sts = one(objects, 'StatefulSet');
    const peer = one(objects, 'Service', sts.spec.serviceName);
    assert.equal(peer.spec.clusterIP, 'None', 'members resolve through the headless peer Service');
    const scheme = props.etcd?.tls ? 'https' : 'http';
    const members = Array.from({ length: sts.spec.replicas as number }, (_, i) => `${sts.metadata.name}-${i}`);
    // etcd's flags follow `--` in the etcd-member init container, which writes etcd's config file.
    const init = sts.spec.template.spec.initContainers[0].args as string[];
    const flags = new Map(
      [...init.slice(1, init.indexOf('--')), ...init.slice(init.indexOf('--') + 1)].map((a) => {
        const at = a.indexOf('=');
        return [a.slice(2, at), a.slice(at + 1)] as const;
      }),
    );
    assert.equal(flags.get('advertise-client-urls'), `${scheme}://$(POD_NAME).${peer.metadata.name}:2379`);
    assert.equal(flags.get('initial-advertise-peer-urls'), `${scheme}://$(POD_NAME).${peer.metadata.name}:2380`);
    assert.equal(
      one(objects, 'ConfigMap', `${sts.metadata.name}-members`).data['initial-cluster'],
      members.map((m) => `${m}=${scheme}://${m}.${peer.metadata.name}:2380`).join(','),
    );
    assert.equal(flags.get('initial-cluster-token'), sts.metadata.name, 'from the stack name only');
    assert.equal(flags.get('peer-url'), flags.get('initial-advertise-peer-urls'), "etcd-member adds etcd's own URL");
    assert.equal(one(objects, 'Service', urlParts(flags.get('endpoints')!).host).spec.type, 'ClusterIP');

    for (const configMap of find(objects, 'ConfigMap').filter((c) => c.data['config.json'])) {
      const endpoints = JSON.parse(configMap.data['config.json']).etcd.endpoints as string[];
      assert.ok(endpoints.length > 0);
      for (const url of endpoints) {
        const { host, port } = urlParts(url);
        const service = one(objects, 'Service', host);
        assert.equal(service.spec.type, 'ClusterIP', `${url}: the client Service in ${MOVED}`);
        assert.ok(service.spec.ports.some((p: Rendered) => p.port === port));
      }
    }
    for (const monitor of find(objects, 'ServiceMonitor'))
      assert.equal(monitor.spec.namespaceSelector, undefined, "the ServiceMonitor's own namespace");
  });

  test(`${env}: after the overlay, RBAC subjects are the moved ServiceAccount`, () => {
    const objects = renderWithNamespace(env, MOVED);
    const bindings = [...find(objects, 'ClusterRoleBinding'), ...find(objects, 'RoleBinding')];
    assert.ok(bindings.length > 0);
    for (const binding of bindings)
      for (const subject of binding.subjects as Rendered[]) {
        assert.equal(subject.kind, 'ServiceAccount');
        assert.equal(subject.namespace, MOVED, `${binding.kind}/${binding.metadata.name}`);
        assert.equal(one(objects, 'ServiceAccount', subject.name).metadata.namespace, MOVED);
      }
  });

  if (props.etcd?.tls?.certManager)
    test(`${env}: after the overlay, the issued certificates cover every name dialed`, () => {
      const objects = renderWithNamespace(env, MOVED);
      const sts = one(objects, 'StatefulSet');
      const pod = sts.spec.template.spec;
      const secretOf = (volume: string) =>
        (pod.volumes as Rendered[]).find((v) => v.name === volume)!.secret.secretName;
      const dnsNames = (secret: string) =>
        find(objects, 'Certificate').find((c) => c.spec.secretName === secret)!.spec.dnsNames as string[];
      const peers = (one(objects, 'ConfigMap', `${sts.metadata.name}-members`).data['initial-cluster'] as string)
        .split(',')
        .map((member) => urlParts(member.slice(member.indexOf('=') + 1)).host);
      for (const host of peers)
        assert.ok(
          dnsNames(secretOf('tls-peer')).some((n) => goCovers(n, host)),
          `peer ${host}`,
        );
      for (const configMap of find(objects, 'ConfigMap').filter((c) => c.data['config.json']))
        for (const url of JSON.parse(configMap.data['config.json']).etcd.endpoints as string[])
          assert.ok(nodeCovers(dnsNames(secretOf('tls-server')), urlParts(url).host), `client ${url}`);
    });
}

const base: DnsStackProps = { zones: [{ name: 'example.org' }] };
const GITOPS_DELETION = ['Prune=false', 'Delete=false'];

const protectionCases: [string, DnsStackProps, 'protected' | 'unprotected' | 'no Namespace'][] = [
  ['the default', base, 'protected'],
  ['with sync waves', { ...base, gitops: { syncWaves: true } }, 'protected'],
  ['opted out', { ...base, namespace: { pruneProtection: false } }, 'unprotected'],
  ['not emitted', { ...base, namespace: { create: false } }, 'no Namespace'],
  ['with the DNSEndpoint CRD', { ...base, sources: { dnsEndpointCrd: true } }, 'protected'],
  [
    'opted out, with the DNSEndpoint CRD',
    { ...base, namespace: { pruneProtection: false }, sources: { dnsEndpointCrd: true } },
    'unprotected',
  ],
];
for (const [name, props, expected] of protectionCases)
  test(`the Namespace's prune protection: ${name}`, () => {
    const objects = synthObjects(props) as Rendered[];
    const namespaces = find(objects, 'Namespace');
    assert.equal(namespaces.length, expected === 'no Namespace' ? 0 : 1);
    const annotations = (namespaces[0]?.metadata.annotations ?? {}) as Record<string, string>;
    if (expected === 'protected') {
      assert.equal(annotations['kustomize.toolkit.fluxcd.io/prune'], 'disabled');
      assert.deepEqual(annotations['argocd.argoproj.io/sync-options']!.split(','), GITOPS_DELETION);
      assert.equal(annotations['argocd.argoproj.io/sync-wave'], props.gitops?.syncWaves ? '-2' : undefined);
    }
    // The DNSEndpoint CRD always: pruning it would delete every DNSEndpoint of the cluster.
    const crds = find(objects, 'CustomResourceDefinition');
    assert.equal(crds.length, props.sources?.dnsEndpointCrd ? 1 : 0);
    for (const crd of crds)
      for (const [key, value] of Object.entries(PRUNE_PROTECTION))
        assert.equal(crd.metadata.annotations?.[key], value, `the CRD's ${key}`);
    // Only those are protected: everything else stays prunable.
    const others = objects.filter(
      (o) => o.kind !== 'CustomResourceDefinition' && (expected !== 'protected' || o.kind !== 'Namespace'),
    );
    for (const o of others) {
      const a = (o.metadata.annotations ?? {}) as Record<string, string>;
      assert.equal(a['kustomize.toolkit.fluxcd.io/prune'], undefined, `${o.kind}/${o.metadata.name}`);
      assert.ok(!/Prune=|Delete=/.test(a['argocd.argoproj.io/sync-options'] ?? ''), `${o.kind}/${o.metadata.name}`);
    }
  });
