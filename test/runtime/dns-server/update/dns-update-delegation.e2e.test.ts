// The delegation pattern (k8s_gateway's dnsChallenge, many enterprise setups): the
// `_acme-challenge` name of a name in the main zone is a CNAME into a zone of challenges only, and
// only a key of that zone may write there. Real nsupdate, real etcdns, real etcd; the CNAME
// written as the controller publishes a static record (a DNSEndpoint). cert-manager follows such
// a CNAME with `cnameStrategy: Follow` and updates its target.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { layOut } from '../../../../src/runtime/controller/plan/layout.ts';
import { dig } from '../../../support/dig.ts';
import { startEtcd } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { nsupdate, updateConfigFile } from '../../../support/nsupdate.ts';
import { stopAll } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import type { TsigKeySpec } from '../../../support/tsig-key.ts';

const key = (name: string, fill: number): TsigKeySpec => ({
  name,
  algorithm: 'hmac-sha256',
  secret: Buffer.alloc(32, fill).toString('base64'),
});
/** May write TXT at any name below the challenge zone, nothing in the main zone. */
const CHALLENGE = key('challenge', 5);
/** May write TXT at _acme-challenge names of the main zone (the pattern without delegation). */
const ACME = key('acme', 6);
const ALIAS = '_acme-challenge.www.example.org.';
const TARGET = 'www.acme.example.net.';

let client: Etcd3;
let server: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  client = etcd.client();
  const cname = layOut(
    {
      name: ALIAS,
      type: 'CNAME',
      target: TARGET,
      object: { kind: 'DNSEndpoint', apiVersion: 'externaldns.k8s.io/v1alpha1', namespace: 'etcdns', name: 'acme' },
    },
    '/skydns',
    'default',
  );
  await client.put(cname.key).value(JSON.stringify(cname.entry));
  const config = updateConfigFile(tempDir('update-delegation'), [CHALLENGE, ACME], {
    keys: [
      { name: 'challenge', suffixes: ['acme.example.net'], names: 'any' },
      { name: 'acme', suffixes: ['example.org'] },
    ],
  });
  server = await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org', 'acme.example.net'],
    args: ['--config', config],
  });
});
after(stopAll);

const update = (zone: string, k: TsigKeySpec, command: string) =>
  nsupdate({ port: server.port, zone, key: k, commands: [command] });

test("the challenge zone's key writes the CNAME's target; a resolver following the alias finds it", async () => {
  const r = await update('acme.example.net', CHALLENGE, `update add ${TARGET} 60 TXT "delegated-token"`);
  assert.equal(r.rcode, 'NOERROR', r.output);
  // The alias's answer is the CNAME (the target is in another zone: the resolver asks again, as
  // the ACME server's resolver does), and the target's the TXT.
  const alias = await dig({ port: server.port, name: ALIAS, type: 'TXT' });
  assert.deepEqual(
    alias.answer.map((a) => `${a.name} ${a.type} ${a.data}`),
    [`${ALIAS} CNAME ${TARGET}`],
  );
  for (let tries = 0; ; tries++) {
    const target = await dig({ port: server.port, name: TARGET, type: 'TXT' });
    if (target.answer.length > 0) {
      assert.deepEqual(
        target.answer.map((a) => `${a.type} ${a.data}`),
        ['TXT "delegated-token"'],
      );
      break;
    }
    if (tries > 60) assert.fail(target.raw);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

// [row, zone, key, update, rcode]
const rows: [string, string, TsigKeySpec, string, string][] = [
  [
    'the challenge key in the main zone: REFUSED',
    'example.org',
    CHALLENGE,
    `update add ${ALIAS} 60 TXT "x"`,
    'REFUSED',
  ],
  [
    'the challenge key, another type (A): REFUSED',
    'acme.example.net',
    CHALLENGE,
    `update add ${TARGET} 60 A 192.0.2.1`,
    'REFUSED',
  ],
  [
    'the challenge key at the zone apex: REFUSED',
    'acme.example.net',
    CHALLENGE,
    'update add acme.example.net. 60 TXT "x"',
    'REFUSED',
  ],
  [
    "the main zone's key at the alias (the controller's CNAME): REFUSED",
    'example.org',
    ACME,
    `update add ${ALIAS} 60 TXT "x"`,
    'REFUSED',
  ],
  [
    "the main zone's key in the challenge zone: REFUSED",
    'acme.example.net',
    ACME,
    `update add ${TARGET} 60 TXT "x"`,
    'REFUSED',
  ],
];
for (const [row, zone, k, command, rcode] of rows) {
  test(row, async () => {
    const r = await update(zone, k, command);
    assert.equal(r.rcode, rcode, r.output);
  });
}

test("the controller's CNAME is intact", async () => {
  const answer = await dig({ port: server.port, name: ALIAS, type: 'CNAME' });
  assert.deepEqual(
    answer.answer.map((a) => `${a.type} ${a.data}`),
    [`CNAME ${TARGET}`],
  );
});
