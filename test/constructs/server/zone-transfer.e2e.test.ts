// Zone transfers in the constructs: the config file each DNS server reads carries the transfer
// settings the props gave (server-wide, per zone, per view) and its own loader accepts them; each
// Secret named is mounted once, read-only, with only the keys named, and the config holds only a
// path into that mount (no key in any manifest); bad props fail naming the field. Last, the
// synthesized pod's config, with the Secret's file where the pod mounts it, makes the real server
// transfer each zone to the dig its props allow (a zone's own settings with TSIG, the server's
// for the other) and refuse the others, and NOTIFY the zone's secondary of a change.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { App, Chart } from 'cdk8s';
import { ConfigError } from '../../../src/config/config-error.ts';
import { DnsServer } from '../../../src/constructs/server/dns-server.ts';
import { DnsStack, type DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { TSIG_DIR, type TransferProps } from '../../../src/constructs/server/zone-transfer.ts';
import { loadServerSettings } from '../../../src/runtime/dns-server/server-settings.ts';
import { digAxfr } from '../../support/dig-axfr.ts';
import { startEtcd } from '../../support/etcd.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor, waitReady } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin } from '../../support/tools.ts';
import { keyStatement } from '../../support/tsig-key.ts';
import { find, podSpec, serverConfig, type Json } from './server-objects.ts';

after(stopAll);

const CORP: TransferProps = {
  allowCidrs: ['192.0.2.53/32', '10.20.0.0/16'],
  notify: ['192.0.2.53', '10.20.0.53:5300'],
  keySecret: { name: 'xfr-corp' },
};
const PUBLIC: TransferProps = { allowCidrs: ['203.0.113.0/24', '2001:db8::/64'], notify: ['203.0.113.10'] };
const ORG: TransferProps = { allowCidrs: ['198.51.100.7/32'], keySecret: { name: 'xfr-org', key: 'org.key' } };
const twoViews = [
  { name: 'internal' },
  { name: 'external', prefix: '/skydns-external', exposure: 'external' as const, transfer: PUBLIC },
];

// [what, props, view, the config's server-wide transfer, each zone's own]
const RENDERED: [string, DnsStackProps, string, Json | undefined, Record<string, Json | undefined>][] = [
  [
    'server-wide, with a key',
    { zones: [{ name: 'example.org' }], server: { transfer: CORP } },
    'internal',
    { ...CORP, keySecret: undefined, keyFile: '/etc/etcdns/tsig/xfr-corp/tsig.key' },
    { 'example.org': undefined },
  ],
  [
    'per zone: its own settings, the other zone none',
    { zones: [{ name: 'example.org', transfer: ORG }, { name: 'example.net' }] },
    'internal',
    undefined,
    {
      'example.org': { allowCidrs: ['198.51.100.7/32'], keyFile: '/etc/etcdns/tsig/xfr-org/org.key' },
      'example.net': undefined,
    },
  ],
  [
    'per view: the internal view keeps server.transfer',
    { zones: [{ name: 'example.org' }], server: { transfer: CORP }, views: twoViews },
    'internal',
    { ...CORP, keySecret: undefined, keyFile: '/etc/etcdns/tsig/xfr-corp/tsig.key' },
    { 'example.org': undefined },
  ],
  [
    "per view: the external view's own replaces server.transfer",
    { zones: [{ name: 'example.org' }], server: { transfer: CORP }, views: twoViews },
    'external',
    PUBLIC,
    { 'example.org': undefined },
  ],
  [
    "per view: a zone's own goes with it into every view answering it",
    { zones: [{ name: 'example.org', transfer: ORG }, { name: 'example.net' }], views: twoViews },
    'external',
    PUBLIC,
    { 'example.org': { allowCidrs: ['198.51.100.7/32'], keyFile: '/etc/etcdns/tsig/xfr-org/org.key' } },
  ],
  [
    'none: transfers stay off',
    { zones: [{ name: 'example.org' }] },
    'internal',
    undefined,
    { 'example.org': undefined },
  ],
];

const dir = tempDir('constructs-transfer');
for (const [what, props, view, transfer, zones] of RENDERED)
  test(`config file, ${what}`, () => {
    const config = serverConfig(synthObjects(props) as Json[], view);
    assert.deepEqual(config.transfer, transfer && JSON.parse(JSON.stringify(transfer)));
    for (const [zone, own] of Object.entries(zones))
      assert.deepEqual(config.zones.find((z: Json) => z.name === zone)?.transfer, own, zone);
    // The server's own loader accepts the file and reads the same settings.
    const file = join(dir, `${what.replace(/\W+/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(config));
    const loaded = loadServerSettings(['--config', file], {}).config;
    assert.deepEqual(loaded.transfer?.allowCidrs, transfer?.allowCidrs);
    assert.deepEqual(loaded.transfer?.keyFile, transfer?.keyFile);
    assert.equal(loaded.transfer?.notify?.length, transfer?.notify?.length);
    for (const z of loaded.zones) assert.deepEqual(z.transfer?.keyFile, zones[z.name.replace(/\.$/, '')]?.keyFile);
  });

test('each Secret is mounted once, read-only, with only the keys named; the config holds only their paths', () => {
  const props: DnsStackProps = {
    zones: [
      { name: 'example.org', transfer: { allowCidrs: ['192.0.2.1/32'], keySecret: { name: 'xfr-corp', key: 'org' } } },
      { name: 'example.net', transfer: { allowCidrs: ['192.0.2.2/32'], keySecret: { name: 'xfr.partner.example' } } },
      { name: 'example.com', transfer: CORP },
      { name: 'example.edu' },
    ],
    server: { transfer: CORP },
  };
  const objects = synthObjects(props) as Json[];
  const spec = podSpec(objects, 'internal');
  const tsig = (spec.volumes as Json[]).filter((v) => v.name.startsWith('tsig-'));
  assert.deepEqual(tsig, [
    {
      name: 'tsig-0',
      secret: {
        secretName: 'xfr-corp',
        items: [
          { key: 'org', path: 'org' },
          { key: 'tsig.key', path: 'tsig.key' },
        ],
        defaultMode: 0o440,
      },
    },
    {
      name: 'tsig-1',
      secret: { secretName: 'xfr.partner.example', items: [{ key: 'tsig.key', path: 'tsig.key' }], defaultMode: 0o440 },
    },
  ]);
  const mounts = (spec.containers[0].volumeMounts as Json[]).filter((m) => m.name.startsWith('tsig-'));
  assert.deepEqual(mounts, [
    { name: 'tsig-0', mountPath: `${TSIG_DIR}/xfr-corp`, readOnly: true },
    { name: 'tsig-1', mountPath: `${TSIG_DIR}/xfr.partner.example`, readOnly: true },
  ]);
  // Every key file the config names is a file of one of those mounts.
  const config = serverConfig(objects, 'internal');
  const keyFiles = [config.transfer, ...config.zones.map((z: Json) => z.transfer)]
    .filter((t) => t?.keyFile)
    .map((t) => t.keyFile as string);
  assert.equal(keyFiles.length, 4);
  const provided = new Set(
    mounts.flatMap((m) =>
      tsig.find((v) => v.name === m.name)!.secret.items.map((i: Json) => `${m.mountPath}/${i.path}`),
    ),
  );
  for (const file of keyFiles) assert.ok(provided.has(file), `${file} is mounted`);
  // No Secret object, no key material: the key is only ever in the Secret the user created.
  assert.deepEqual(
    objects.filter((o) => o.kind === 'Secret'),
    [],
  );
  assert.doesNotMatch(JSON.stringify(objects), /hmac-|algorithm|secret \\"/i);
  // Secret volumes follow the view: one without keys mounts none.
  const plain = podSpec(synthObjects({ zones: [{ name: 'example.org' }] }) as Json[], 'internal');
  assert.deepEqual(
    (plain.volumes as Json[]).filter((v) => v.name.startsWith('tsig-')),
    [],
  );
});

test('a changed transfer setting rolls the server pods (the config hash changes)', () => {
  const hash = (props: DnsStackProps) =>
    find(synthObjects(props) as Json[], 'Deployment', 'etcdns-server-internal').spec.template.metadata.annotations[
      'etcdns.io/config-hash'
    ];
  const zones = [{ name: 'example.org' }];
  const base = hash({ zones, server: { transfer: CORP } });
  assert.notEqual(base, hash({ zones }));
  assert.notEqual(base, hash({ zones, server: { transfer: { ...CORP, notify: ['192.0.2.54'] } } }));
  assert.equal(base, hash({ zones, server: { transfer: { ...CORP } } }));
});

// [what, props, a fragment of the message]
const zones = [{ name: 'example.org' }];
const BAD: [string, DnsStackProps, string][] = [
  [
    'not a CIDR',
    { zones, server: { transfer: { allowCidrs: ['corp-dns'] } } },
    'server.transfer.allowCidrs[0]: must be a CIDR',
  ],
  [
    'a CIDR with host bits',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24', '10.0.0.1/8'] } } },
    'server.transfer.allowCidrs[1]: "10.0.0.1/8" has host bits set',
  ],
  [
    'no allowCidrs',
    { zones, server: { transfer: {} as never } },
    'server.transfer.allowCidrs: must be a list of CIDRs',
  ],
  ['empty allowCidrs', { zones, server: { transfer: { allowCidrs: [] } } }, 'server.transfer.allowCidrs: must list'],
  [
    'a notify name',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], notify: ['ns1.example.net'] } } },
    'server.transfer.notify[0]: must be "ip", "ip:port"',
  ],
  [
    'a notify port out of range',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], notify: ['192.0.2.1', '192.0.2.2:70000'] } } },
    'server.transfer.notify[1]',
  ],
  ['not an object', { zones, server: { transfer: 'on' as never } }, 'server.transfer: must be an object'],
  [
    'a key file path instead of a Secret',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], keyFile: '/etc/key' } as never } },
    'server.transfer.keyFile: not a prop; name the Secret',
  ],
  [
    'a Secret without a name',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], keySecret: {} as never } } },
    'server.transfer.keySecret.name: required',
  ],
  [
    'a bad Secret name',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], keySecret: { name: 'Corp_TSIG' } } } },
    'server.transfer.keySecret.name: must be 253 or fewer',
  ],
  [
    'a Secret key leaving the mount',
    { zones, server: { transfer: { allowCidrs: ['192.0.2.0/24'], keySecret: { name: 'k', key: '../k' } } } },
    'server.transfer.keySecret.key: must be a Secret key',
  ],
  [
    "a zone's own",
    { zones: [{ name: 'example.org' }, { name: 'example.net', transfer: { allowCidrs: ['192.0.2.300/32'] } }] },
    'zones[1].transfer.allowCidrs[0]',
  ],
  [
    "a view's own",
    { zones, views: [{ name: 'internal', transfer: { allowCidrs: ['192.0.2.0/24'], notify: ['x'] } }] },
    'views[0].transfer.notify[0]',
  ],
];
for (const [what, props, message] of BAD)
  test(`refused: ${what}`, () => {
    assert.throws(
      () => new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', props),
      (e: unknown) => e instanceof ConfigError && e.message.includes(message),
    );
  });

test('DnsServer used on its own checks its zones and transfer props too', () => {
  const server = (transfer: TransferProps | undefined, zoneTransfer: TransferProps | undefined) =>
    new DnsServer(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'server', {
      stack: { name: 'etcdns', namespace: 'etcdns', syncWaves: false },
      view: 'internal',
      prefix: '/skydns',
      zones: [{ name: 'example.org', ...(zoneTransfer ? { transfer: zoneTransfer } : {}) }],
      etcd: { endpoints: ['http://etcdns-etcd:2379'] },
      httpPort: 8080,
      prometheusAnnotations: false,
      metricsService: false,
      ...(transfer ? { transfer } : {}),
    });
  const refused = (message: string) => (e: unknown) => e instanceof ConfigError && e.message.includes(message);
  assert.throws(
    () => server(undefined, { allowCidrs: ['10.0.0.0/8'], keySecret: { name: 'a b' } }),
    refused('zones[0].transfer.keySecret.name'),
  );
  assert.throws(() => server({ allowCidrs: ['10.0.0.0/40'] }, undefined), refused('server.transfer.allowCidrs[0]'));
  assert.deepEqual(server({ allowCidrs: ['10.0.0.0/8'] }, { allowCidrs: ['192.0.2.0/24'] }).transferCidrs, [
    '192.0.2.0/24',
  ]);
});

/** The zone a DNS NOTIFY (opcode 4) message is about, else undefined. */
function notifiedZone(msg: Buffer): string | undefined {
  if (msg.length < 12 || ((msg[2]! >> 3) & 0xf) !== 4) return undefined;
  const labels: string[] = [];
  for (let at = 12; msg[at]! > 0; at += msg[at]! + 1) labels.push(msg.toString('ascii', at + 1, at + 1 + msg[at]!));
  return labels.join('.');
}

test('the synthesized pod, with the Secrets where it mounts them, transfers each zone as its props say and sends NOTIFY', async () => {
  // What a secondary listening for NOTIFYs would get.
  const secondary = createSocket('udp4');
  const notified: string[] = [];
  secondary.on('message', (msg) => notified.push(notifiedZone(msg) ?? '(not a NOTIFY)'));
  await new Promise<void>((resolve) => secondary.bind(0, '127.0.0.1', resolve));
  after(() => secondary.close());
  const props: DnsStackProps = {
    zones: [
      {
        name: 'example.org',
        transfer: {
          allowCidrs: ['127.0.0.2/32'],
          notify: [`127.0.0.1:${secondary.address().port}`],
          keySecret: { name: 'xfr-org', key: 'org.key' },
        },
      },
      { name: 'example.net' },
    ],
    server: { transfer: { allowCidrs: ['127.0.0.3/32'] } },
  };
  const objects = synthObjects(props) as Json[];
  const config = serverConfig(objects, 'internal');
  const container = podSpec(objects, 'internal').containers[0];

  // What kubelet would put at the mount: the Secret's key, a BIND key file.
  const secret = randomBytes(32).toString('base64');
  const root = tempDir('transfer-pod');
  const orgTransfer = config.zones.find((z: Json) => z.name === 'example.org').transfer;
  assert.equal(orgTransfer.keyFile, `${TSIG_DIR}/xfr-org/org.key`);
  orgTransfer.keyFile = join(root, orgTransfer.keyFile);
  mkdirSync(dirname(orgTransfer.keyFile), { recursive: true });
  writeFileSync(orgTransfer.keyFile, keyStatement({ name: 'xfr.example.org', algorithm: 'hmac-sha256', secret }));

  const etcd = await startEtcd();
  await etcd.client().put('/skydns/org/example/www').value('{"host":"10.9.176.80"}');
  await etcd.client().put('/skydns/net/example/www').value('{"host":"10.9.176.81"}');
  const dnsPort = await freePort();
  const httpPort = await freePort();
  const file = join(root, 'config.json');
  writeFileSync(
    file,
    JSON.stringify({
      ...config,
      etcd: { ...config.etcd, endpoints: [etcd.endpoint] },
      listen: `127.0.0.1:${dnsPort}`,
      httpListen: `127.0.0.1:${httpPort}`,
      snapshotFile: join(root, 'records.snapshot'),
    }),
  );
  const args = (container.args as string[]).map((a) => (a === '/etc/etcdns/config.json' ? file : a));
  const server = startProcess('etcdns-server-transfer-pod', nodeBin, [etcdnsBin, ...args]);
  await waitReady(server, 'ready', async () => {
    const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`).catch(() => undefined);
    return res?.status === 200;
  });

  const key = `hmac-sha256:xfr.example.org:${secret}`;
  // [zone, source, signed, transferred]: example.org by its own settings, example.net by the server's.
  const rows: [string, string, boolean, boolean][] = [
    ['example.org', '127.0.0.2', true, true],
    ['example.org', '127.0.0.2', false, false],
    ['example.org', '127.0.0.3', false, false],
    ['example.net', '127.0.0.3', false, true],
    ['example.net', '127.0.0.2', false, false],
  ];
  for (const [zone, source, signed, transferred] of rows) {
    const result = await digAxfr({ port: dnsPort, zone, source, ...(signed ? { key } : {}) });
    const records = result.records.filter((r) => r.type !== 'TSIG');
    const what = `${zone} from ${source}${signed ? ', signed' : ''}\n${result.raw}\n${server.logs()}`;
    if (transferred) {
      assert.equal(records[0]?.type, 'SOA', what);
      assert.ok(
        records.some((r) => r.name === `www.${zone}.`),
        what,
      );
    } else assert.equal(records.length, 0, what);
  }

  // A change of example.org is announced to its secondary; example.net has none.
  notified.length = 0;
  await etcd.client().put('/skydns/org/example/new').value('{"host":"10.9.176.82"}');
  await waitFor('a NOTIFY for example.org', () => (notified.includes('example.org') ? true : undefined), 10_000);
  assert.deepEqual([...new Set(notified)], ['example.org']);
});

test('a catalog: its secondaries (the server-wide transfer) are let in and NOTIFYed even when every zone has its own', () => {
  const server: TransferProps = { allowCidrs: ['192.0.2.53/32'], notify: ['192.0.2.53'] };
  const built = (catalog: boolean) =>
    new DnsStack(new Chart(new App(), 'test', { disableResourceNameHashes: true }), 'stack', {
      zones: [{ name: 'example.org', transfer: { allowCidrs: ['198.51.100.7/32'] } }],
      server: { transfer: server, ...(catalog ? { catalog: { zone: 'catalog.etcdns.invalid.' } } : {}) },
    }).servers[0]!;
  assert.deepEqual(built(true).transferCidrs, ['192.0.2.53/32', '198.51.100.7/32']);
  assert.deepEqual(
    built(true).peers.map((p) => p.host),
    ['192.0.2.53'],
  );
  assert.deepEqual(built(false).transferCidrs, ['198.51.100.7/32']);
  assert.deepEqual(built(false).peers, []);
});
