// The DNSSEC signer of a DnsStack (src/constructs/dnssec/dnssec-signer.ts), one test per row:
// what each `dnssec` prop puts into the synthesized objects (Knot's StatefulSet, its key volume,
// its configuration, its Service, the signed view's transfer settings, the NetworkPolicy), and
// each mistake refused naming its field. Knot itself runs this output in test/image/knot-image.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { App, Chart } from 'cdk8s';
import { ConfigError } from '../../../src/config/config-error.ts';
import { DnsStack, type DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const zones = [{ name: 'example.org' }, { name: 'example.net' }];
const views = [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' as const }];
const base: DnsStackProps = { zones, views, dnssec: { view: 'external', podCidrs: ['10.244.0.0/16'] } };

function find(objects: Json[], kind: string, name: string): Json {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  assert.ok(found, `${kind}/${name} synthesized`);
  return found;
}
const knotConf = (objects: Json[]) => String(find(objects, 'ConfigMap', 'etcdns-dnssec-signer').data['knot.conf']);
const serverConfig = (objects: Json[], view: string) =>
  JSON.parse(find(objects, 'ConfigMap', `etcdns-server-${view}`).data['config.json']);
const signerPod = (objects: Json[]) => find(objects, 'StatefulSet', 'etcdns-dnssec-signer').spec.template.spec;

// [what, props, check of the synthesized objects]
const rows: [string, DnsStackProps, (objects: Json[]) => void][] = [
  [
    'one Knot pod, its keys and signed zones on a volume claim of 1Gi',
    base,
    (objects) => {
      const set = find(objects, 'StatefulSet', 'etcdns-dnssec-signer');
      assert.equal(set.spec.replicas, 1);
      const [claim] = set.spec.volumeClaimTemplates;
      assert.deepEqual(
        [claim.kind, claim.metadata.name, claim.spec.resources.requests.storage],
        ['PersistentVolumeClaim', 'data', '1Gi'],
      );
      const knot = signerPod(objects).containers[0];
      assert.ok(knot.volumeMounts.some((m: Json) => m.name === 'data' && m.mountPath === '/var/lib/knot'));
      assert.match(knotConf(objects), /storage: \/var\/lib\/knot/);
    },
  ],
  [
    "every zone of the view signed, Knot's primary from the file the init step writes, asked every 5 s",
    base,
    (objects) => {
      const conf = knotConf(objects);
      assert.match(conf, /- domain: example\.org\.\n\s+master: etcdns/);
      assert.match(conf, /- domain: example\.net\.\n\s+master: etcdns/);
      assert.match(conf, /^include: \/run\/knot\/primary\.conf$/m);
      assert.match(conf, /refresh-max-interval: 5s/);
      assert.doesNotMatch(conf, /notify-from-etcdns/);
      const init = signerPod(objects).initContainers[0];
      assert.deepEqual(init.env.find((e: Json) => e.name === 'PRIMARY_SERVICE').value, 'etcdns-server-external');
      assert.match(init.command.join(' '), /getent hosts "\$PRIMARY_SERVICE"/);
    },
  ],
  [
    "only the zones named; Knot's refresh interval",
    { ...base, dnssec: { ...base.dnssec!, zones: ['example.org'], refreshInterval: '2s' } },
    (objects) => {
      assert.match(knotConf(objects), /- domain: example\.org\./);
      assert.doesNotMatch(knotConf(objects), /example\.net/);
      assert.match(knotConf(objects), /refresh-max-interval: 2s/);
    },
  ],
  [
    "the signed view's server allows the pod network to transfer; the other view's does not",
    base,
    (objects) => {
      assert.deepEqual(serverConfig(objects, 'external').transfer, { allowCidrs: ['10.244.0.0/16'] });
      assert.equal(serverConfig(objects, 'internal').transfer, undefined);
    },
  ],
  [
    "the view's own transfer kept, the pod network added",
    {
      ...base,
      views: [views[0]!, { ...views[1]!, transfer: { allowCidrs: ['192.0.2.53/32'], notify: ['192.0.2.53'] } }],
    },
    (objects) =>
      assert.deepEqual(serverConfig(objects, 'external').transfer, {
        allowCidrs: ['192.0.2.53/32', '10.244.0.0/16'],
        notify: ['192.0.2.53'],
      }),
  ],
  [
    'TSIG: etcdns requires the BIND key, Knot includes the Knot key and signs with it',
    { ...base, dnssec: { ...base.dnssec!, tsig: { secretName: 'signer-tsig', keyName: 'signer.example.org' } } },
    (objects) => {
      assert.equal(serverConfig(objects, 'external').transfer.keyFile, '/etc/etcdns/tsig/signer-tsig/tsig.key');
      assert.match(knotConf(objects), /^include: \/etc\/knot\/tsig\/knot\.key$/m);
      const pod = signerPod(objects);
      assert.deepEqual(pod.volumes.find((v: Json) => v.name === 'tsig').secret.items, [
        { key: 'knot.key', path: 'knot.key' },
      ]);
      assert.equal(pod.initContainers[0].env.find((e: Json) => e.name === 'TSIG_KEY').value, 'signer.example.org');
    },
  ],
  [
    "the outside's secondaries: Knot's transfer acl and NOTIFY, in Knot's address form",
    {
      ...base,
      dnssec: { ...base.dnssec!, secondaries: { allowCidrs: ['192.0.2.0/24'], notify: ['192.0.2.53:5300'] } },
    },
    (objects) => {
      assert.match(knotConf(objects), /address: \[192\.0\.2\.0\/24\]\n\s+action: transfer/);
      assert.match(knotConf(objects), /address: 192\.0\.2\.53@5300/);
    },
  ],
  [
    "the Service the outside asks: port 53 of Knot's pod, the DNS Service's props",
    { ...base, dnssec: { ...base.dnssec!, service: { type: 'NodePort' } } },
    (objects) => {
      const service = find(objects, 'Service', 'etcdns-dnssec-signer');
      assert.equal(service.spec.type, 'NodePort');
      assert.deepEqual(service.spec.selector, {
        'app.kubernetes.io/component': 'dnssec-signer',
        'app.kubernetes.io/name': 'etcdns',
      });
      assert.deepEqual(
        service.spec.ports.map((p: Json) => `${p.port}/${p.protocol}->${p.targetPort}`),
        ['53/TCP->dns-tcp', '53/UDP->dns-udp'],
      );
    },
  ],
  [
    'NetworkPolicy: DNS from anyone; with egress, only the view server pods on their DNS port (and the cluster DNS)',
    { ...base, networkPolicy: { egress: { apiServer: { cidrs: ['10.0.0.1/32'] } } } },
    (objects) => {
      const policy = find(objects, 'NetworkPolicy', 'etcdns-dnssec-signer');
      assert.deepEqual(policy.spec.ingress, [
        {
          ports: [
            { port: 'dns-udp', protocol: 'UDP' },
            { port: 'dns-tcp', protocol: 'TCP' },
          ],
        },
      ]);
      const [clusterDns, server] = policy.spec.egress;
      assert.equal(clusterDns.to[0].podSelector.matchLabels['k8s-app'], 'kube-dns');
      assert.deepEqual(server, {
        to: [
          {
            podSelector: {
              matchLabels: { 'app.kubernetes.io/component': 'server-external', 'app.kubernetes.io/name': 'etcdns' },
            },
          },
        ],
        ports: [
          { port: 5353, protocol: 'UDP' },
          { port: 5353, protocol: 'TCP' },
        ],
      });
    },
  ],
  [
    'one view: signed without naming it',
    { zones, dnssec: { podCidrs: ['10.244.0.0/16'] } },
    (objects) => assert.match(knotConf(objects), /- domain: example\.org\./),
  ],
  [
    'no dnssec: no signer',
    { zones, views },
    (objects) =>
      assert.deepEqual(
        objects.filter((o) => /dnssec/.test(o.metadata.name)),
        [],
      ),
  ],
];
for (const [what, props, check] of rows) test(`dnssec signer: ${what}`, () => check(synthObjects(props) as Json[]));

function build(props: DnsStackProps): void {
  new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', props);
}

// [what, props, field named, a fragment of the message]
const bad: [string, DnsStackProps, string, string][] = [
  ['two views, none named', { ...base, dnssec: { podCidrs: ['10.244.0.0/16'] } }, 'dnssec.view', 'required with more'],
  ['an unknown view', { ...base, dnssec: { ...base.dnssec!, view: 'public' } }, 'dnssec.view', 'no such view "public"'],
  [
    'a zone the view does not answer',
    { ...base, dnssec: { ...base.dnssec!, zones: ['example.com'] } },
    'dnssec.zones[0]',
    'is no zone of view "external"',
  ],
  ['no pod network', { ...base, dnssec: { view: 'external', podCidrs: [] } }, 'dnssec.podCidrs', 'list of CIDRs'],
  [
    'a pod network that is no CIDR',
    { ...base, dnssec: { view: 'external', podCidrs: ['10.244.0.0'] } },
    'dnssec.podCidrs[0]',
    'CIDR',
  ],
  [
    'a refresh below 2 s',
    { ...base, dnssec: { ...base.dnssec!, refreshInterval: '1s' } },
    'dnssec.refreshInterval',
    '2 s or more',
  ],
  [
    'an algorithm Knot does not sign with here',
    { ...base, dnssec: { ...base.dnssec!, policy: { algorithm: 'rsasha1' as 'ed25519' } } },
    'dnssec.policy.algorithm',
    'must be one of',
  ],
  [
    'a lifetime that is no Knot time',
    { ...base, dnssec: { ...base.dnssec!, policy: { zskLifetime: '30 days' } } },
    'dnssec.policy.zskLifetime',
    'must be a time',
  ],
  [
    'a signed zone with a transfer of its own',
    { ...base, zones: [{ name: 'example.org', transfer: { allowCidrs: ['192.0.2.0/24'] } }, zones[1]!] },
    'zones[0].transfer',
    'is signed (dnssec)',
  ],
  [
    'a TSIG key name that is no name',
    { ...base, dnssec: { ...base.dnssec!, tsig: { secretName: 'tsig', keyName: 'a b' } } },
    'dnssec.tsig.keyName',
    'key name',
  ],
  [
    'a volume size that is no quantity',
    { ...base, dnssec: { ...base.dnssec!, storage: { size: 'big' } } },
    'dnssec.storage.size',
    'storage quantity',
  ],
  [
    'a secondary to NOTIFY that is no address',
    { ...base, dnssec: { ...base.dnssec!, secondaries: { notify: ['ns1.example.org'] } } },
    'dnssec.secondaries.notify[0]',
    'ip:port',
  ],
  [
    'a Service type that does not exist',
    { ...base, dnssec: { ...base.dnssec!, service: { type: 'External' as 'NodePort' } } },
    'dnssec.service.type',
    'must be one of',
  ],
];
for (const [what, props, field, fragment] of bad)
  test(`dnssec signer refused, naming the field: ${what}`, () => {
    assert.throws(
      () => build(props),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
        const line = error.problems.find((p) => p.startsWith(`${field}: `));
        assert.ok(line, `a problem naming ${field}, got:\n${error.message}`);
        assert.ok(line.includes(fragment), `"${line}" says "${fragment}"`);
        return true;
      },
    );
  });
