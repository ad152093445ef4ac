// RFC 2136 UPDATE end to end: the real nsupdate (BIND 9) against a real etcdns server on a real
// etcd, one row each. What an update writes is read back three ways: the rcode nsupdate reports,
// what dig gets from the server (through the etcd watch), and the entry in etcd (owner, lease).
// The key "acme" may write TXT at _acme-challenge names below example.org; "flood" the same, two
// updates a minute; a key the file holds but the config gives no scope, and a key etcdns does not
// know, change nothing. A record of the controller is written as its layout writes it.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { layOut } from '../../../../src/runtime/controller/plan/layout.ts';
import { dig } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { nsupdate, updateConfigFile } from '../../../support/nsupdate.ts';
import { stopAll } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import type { TsigKeySpec } from '../../../support/tsig-key.ts';

const ZONE = 'example.org';
const key = (name: string, secret: string): TsigKeySpec => ({ name, algorithm: 'hmac-sha256', secret });
const ACME = key('acme', Buffer.alloc(32, 1).toString('base64'));
const FLOOD = key('flood', Buffer.alloc(32, 2).toString('base64'));
const NO_SCOPE = key('no-scope', Buffer.alloc(32, 3).toString('base64'));
const UNKNOWN = key('unknown', Buffer.alloc(32, 4).toString('base64'));

let etcd: EtcdHandle;
let client: Etcd3;
let server: EtcdnsServerHandle;
let configFile: string;

before(async () => {
  etcd = await startEtcd();
  client = etcd.client();
  configFile = updateConfigFile(tempDir('update'), [ACME, FLOOD, NO_SCOPE], {
    keys: [
      { name: 'acme', suffixes: [ZONE] },
      { name: 'flood', suffixes: [ZONE], updatesPerMinute: 2 },
    ],
  });
  server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE], args: ['--config', configFile] });
});
after(stopAll);

/** An UPDATE of `commands` signed with `k` (null: unsigned). */
const update = (commands: string[], k: TsigKeySpec | null = ACME, extra: { tcp?: boolean } = {}) =>
  nsupdate({ port: server.port, zone: ZONE, commands, ...(k ? { key: k } : {}), ...extra });

/** The TXT strings dig gets at `name`, each record's strings as dig prints them, sorted. */
async function txt(name: string, tcp = false): Promise<string[]> {
  const r = await dig({ port: server.port, name, type: 'TXT', tcp });
  return r.answer.map((a) => a.data).sort();
}

/** Polls until `check` holds (the watch carries a write in milliseconds); fails after 3 s. */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const same = (want: string[]) => (got: string[]) => JSON.stringify(got) === JSON.stringify([...want].sort());

async function entriesBelow(name: string) {
  const key = `/skydns/${name.split('.').reverse().join('/')}`;
  const kvs = await client.getAll().prefix(`${key}/`).exec();
  return kvs.kvs.map((kv) => ({
    key: kv.key.toString(),
    value: JSON.parse(kv.value.toString()),
    lease: String(kv.lease),
  }));
}

test('add a TXT: NOERROR, answered from the watch, owned by the key, on a lease', async () => {
  const r = await update(['update add _acme-challenge.www.example.org. 60 TXT "token-one"']);
  assert.equal(r.rcode, 'NOERROR', r.output);
  await eventually(() => txt('_acme-challenge.www.example.org.'), same(['"token-one"']), 'TXT answered');
  const [entry, ...rest] = await entriesBelow('_acme-challenge.www.example.org');
  assert.deepEqual(rest, []);
  assert.deepEqual(entry!.value, { text: 'token-one', ttl: 60, owner: 'update:acme' });
  assert.notEqual(entry!.lease, '0', 'the entry is on a lease');
});

test('delete a TXT by value: the other TXT of the name stays', async () => {
  const name = '_acme-challenge.del.example.org.';
  assert.equal(
    (await update([`update add ${name} 60 TXT "keep"`, `update add ${name} 60 TXT "drop"`])).rcode,
    'NOERROR',
  );
  await eventually(() => txt(name), same(['"drop"', '"keep"']), 'both answered');
  assert.equal((await update([`update delete ${name} TXT "drop"`])).rcode, 'NOERROR');
  await eventually(() => txt(name), same(['"keep"']), 'one left');
  assert.equal((await update([`update delete ${name} TXT`])).rcode, 'NOERROR');
  await eventually(() => txt(name), same([]), 'the RRset deleted');
  assert.deepEqual(await entriesBelow(name.slice(0, -1)), []);
});

test('several strings: two TXT records at one name, and one of 300 bytes as 255 + 45', async () => {
  const name = '_acme-challenge.many.example.org.';
  const long = 'x'.repeat(300);
  const r = await update([
    `update add ${name} 60 TXT "wildcard-token"`,
    `update add ${name} 60 TXT "apex-token"`,
    `update add ${name} 60 TXT "${long.slice(0, 255)}" "${long.slice(255)}"`,
  ]);
  assert.equal(r.rcode, 'NOERROR', r.output);
  await eventually(
    () => txt(name),
    same(['"apex-token"', '"wildcard-token"', `"${long.slice(0, 255)}" "${long.slice(255)}"`]),
    'three TXT answered',
  );
});

test('strings the layout cannot keep ("a" "b": no 255-byte cut gives them back) are REFUSED', async () => {
  const r = await update(['update add _acme-challenge.split.example.org. 60 TXT "a" "b"']);
  assert.equal(r.rcode, 'REFUSED', r.output);
  assert.deepEqual(await entriesBelow('_acme-challenge.split.example.org'), []);
});

// [row, prerequisite, rcode]: the name "_acme-challenge.pre" holds TXT "present"; "_acme-challenge.none" nothing.
const prerequisites: [string, string, string][] = [
  ['name not in use, met', 'prereq nxdomain _acme-challenge.none.example.org.', 'NOERROR'],
  ['name not in use, not met: YXDOMAIN', 'prereq nxdomain _acme-challenge.pre.example.org.', 'YXDOMAIN'],
  ['name in use, met', 'prereq yxdomain _acme-challenge.pre.example.org.', 'NOERROR'],
  ['name in use, not met: NXDOMAIN', 'prereq yxdomain _acme-challenge.none.example.org.', 'NXDOMAIN'],
  ['RRset exists, met', 'prereq yxrrset _acme-challenge.pre.example.org. TXT', 'NOERROR'],
  ['RRset exists, not met: NXRRSET', 'prereq yxrrset _acme-challenge.none.example.org. TXT', 'NXRRSET'],
  ['RRset does not exist, met', 'prereq nxrrset _acme-challenge.pre.example.org. A', 'NOERROR'],
  ['RRset does not exist, not met: YXRRSET', 'prereq nxrrset _acme-challenge.pre.example.org. TXT', 'YXRRSET'],
  ['RRset equals, met', 'prereq yxrrset _acme-challenge.pre.example.org. TXT "present"', 'NOERROR'],
  ['RRset equals, not met: NXRRSET', 'prereq yxrrset _acme-challenge.pre.example.org. TXT "other"', 'NXRRSET'],
  ['prerequisite outside the zone: NOTZONE', 'prereq nxdomain www.example.net.', 'NOTZONE'],
];

for (const [row, prereq, rcode] of prerequisites) {
  test(`prerequisite: ${row}`, async () => {
    const pre = '_acme-challenge.pre.example.org.';
    assert.equal((await update([`update add ${pre} 60 TXT "present"`])).rcode, 'NOERROR');
    const target = `_acme-challenge.pre-${rcode.toLowerCase()}-${prerequisites.findIndex((p) => p[0] === row)}.example.org.`;
    const r = await update([prereq, `update add ${target} 60 TXT "written"`]);
    assert.equal(r.rcode, rcode, r.output);
    await eventually(() => txt(target), same(rcode === 'NOERROR' ? ['"written"'] : []), 'written only when met');
  });
}

// [row, key, update, rcode]
const refusals: [string, TsigKeySpec | null, string, string][] = [
  [
    'a key etcdns does not know: NOTAUTH (BADKEY)',
    UNKNOWN,
    'update add _acme-challenge.k.example.org. 60 TXT "x"',
    'NOTAUTH',
  ],
  [
    'the right key name with a wrong secret: NOTAUTH (BADSIG)',
    key('acme', FLOOD.secret),
    'update add _acme-challenge.k.example.org. 60 TXT "x"',
    'NOTAUTH',
  ],
  ['unsigned: REFUSED', null, 'update add _acme-challenge.k.example.org. 60 TXT "x"', 'REFUSED'],
  [
    'a key in the file with no scope: REFUSED',
    NO_SCOPE,
    'update add _acme-challenge.k.example.org. 60 TXT "x"',
    'REFUSED',
  ],
  [
    'a name outside the scope (no _acme-challenge label): REFUSED',
    ACME,
    'update add www.example.org. 60 TXT "x"',
    'REFUSED',
  ],
  [
    '_acme-challenge below another suffix: REFUSED',
    ACME,
    'update add _acme-challenge.example.org.example.org. 60 A 192.0.2.1',
    'REFUSED',
  ],
  [
    'another type (A) at a name in scope: REFUSED',
    ACME,
    'update add _acme-challenge.k.example.org. 60 A 192.0.2.1',
    'REFUSED',
  ],
  [
    'another type (CNAME) at a name in scope: REFUSED',
    ACME,
    'update add _acme-challenge.k.example.org. 60 CNAME elsewhere.example.net.',
    'REFUSED',
  ],
  ['deleting every RRset of a name out of scope: REFUSED', ACME, 'update delete www.example.org.', 'REFUSED'],
];

for (const [row, k, command, rcode] of refusals) {
  test(`refused: ${row}, counted and logged, nothing written`, async () => {
    const metrics = async () =>
      metricSum((await server.http('/metrics')).body, 'etcdns_dns_updates_total', `result="${rcode}"`);
    const before = await metrics();
    const r = await update([command], k);
    assert.equal(r.rcode, rcode, r.output);
    assert.equal((await metrics()) - before, 1);
    assert.deepEqual(await entriesBelow('_acme-challenge.k.example.org'), []);
    assert.match(server.process.logs(), /dns update refused/);
  });
}

test('a zone etcdns does not serve: NOTAUTH', async () => {
  const r = await nsupdate({
    port: server.port,
    zone: 'example.net',
    key: ACME,
    commands: ['update add _acme-challenge.www.example.net. 60 TXT "x"'],
  });
  assert.equal(r.rcode, 'NOTAUTH', r.output);
});

test("an update at a name where the controller has a record is REFUSED; the controller's record is intact", async () => {
  const name = '_acme-challenge.owned.example.org.';
  const laid = layOut(
    {
      name,
      type: 'TXT',
      target: 'published-by-the-controller',
      object: { kind: 'DNSEndpoint', apiVersion: 'externaldns.k8s.io/v1alpha1', namespace: 'default', name: 'owned' },
    },
    '/skydns',
    'default',
  );
  await client.put(laid.key).value(JSON.stringify(laid.entry));
  await eventually(() => txt(name), same(['"published-by-the-controller"']), 'the controller record answered');
  for (const command of [
    `update add ${name} 60 TXT "challenge"`,
    `update delete ${name} TXT`,
    `update delete ${name}`,
  ]) {
    const r = await update([command]);
    assert.equal(r.rcode, 'REFUSED', `${command}: ${r.output}`);
  }
  assert.equal(await client.get(laid.key).string(), JSON.stringify(laid.entry));
  assert.deepEqual(await txt(name), ['"published-by-the-controller"']);
});

/** A UDP relay in front of `port` that keeps every message it forwards. */
async function relay(port: number): Promise<{ port: number; messages: Buffer[]; close(): void }> {
  const socket = createSocket('udp4');
  const messages: Buffer[] = [];
  const clients = new Map<number, { address: string; port: number }>();
  socket.on('message', (msg, from) => {
    if (from.port === port) {
      const client = clients.get(msg.readUInt16BE(0));
      if (client) socket.send(msg, client.port, client.address);
      return;
    }
    messages.push(msg);
    clients.set(msg.readUInt16BE(0), from);
    socket.send(msg, port, '127.0.0.1');
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { port: socket.address().port, messages, close: () => socket.close() };
}

/** The rcode of the answer to `msg` sent as it is over UDP. */
async function sendRaw(port: number, msg: Buffer): Promise<number> {
  const socket = createSocket('udp4');
  try {
    const answer = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    socket.send(msg, port, '127.0.0.1');
    return (await answer)[3]! & 0x0f;
  } finally {
    socket.close();
  }
}

test('a replay outside the TSIG fudge: NOTAUTH (BADTIME) from a replica 10 minutes later, nothing written', async () => {
  // nsupdate's real message, captured on its way to the server; then sent as it is to a replica
  // whose clock is 10 minutes ahead (faketime): for it, the message was signed 10 minutes ago.
  const name = '_acme-challenge.replay.example.org.';
  const later = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: [ZONE],
    args: ['--config', configFile],
    clockOffset: '+10m',
  });
  const tap = await relay(server.port);
  try {
    const r = await nsupdate({ port: tap.port, zone: ZONE, key: ACME, commands: [`update add ${name} 60 TXT "once"`] });
    assert.equal(r.rcode, 'NOERROR', r.output);
    assert.equal(tap.messages.length, 1);
    assert.equal((await update([`update delete ${name} TXT`])).rcode, 'NOERROR');
    assert.equal(await sendRaw(later.port, tap.messages[0]!), 9 /* NOTAUTH */);
    assert.match(later.process.logs(), /dns update refused.*TSIG error 18/);
    assert.deepEqual(await entriesBelow(name.slice(0, -1)), []);
  } finally {
    tap.close();
    await later.stop();
  }
});

test('an update over TCP', async () => {
  const name = '_acme-challenge.tcp.example.org.';
  const r = await update([`update add ${name} 60 TXT "over-tcp"`], ACME, { tcp: true });
  assert.equal(r.rcode, 'NOERROR', r.output);
  await eventually(() => txt(name, true), same(['"over-tcp"']), 'answered');
  assert.equal((await update([`update delete ${name} TXT "over-tcp"`], ACME, { tcp: true })).rcode, 'NOERROR');
  await eventually(() => txt(name, true), same([]), 'deleted');
});

test('a key over its rate limit (2 a minute) is REFUSED until its bucket refills', async () => {
  const add = (n: number) => update([`update add _acme-challenge.rate${n}.example.org. 60 TXT "x"`], FLOOD);
  assert.equal((await add(1)).rcode, 'NOERROR');
  assert.equal((await add(2)).rcode, 'NOERROR');
  assert.equal((await add(3)).rcode, 'REFUSED');
  assert.deepEqual(await entriesBelow('_acme-challenge.rate3.example.org'), []);
});
