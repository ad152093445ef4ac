// Which replica answered, as operators ask it (real etcd, real `etcdns server`s, dig and kdig, over
// UDP and TCP): NSID (RFC 5001) to a query that asks and never to one that does not, also when
// the answer comes from the cache; CHAOS TXT id.server./hostname.bind. (the identifier),
// version.bind./version.server. (REFUSED unless turned on), any other CHAOS name REFUSED.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { VERSION } from '../../../src/version.ts';
import { parseDig } from '../../support/dig-output.ts';
import { dig, type DigResult } from '../../support/dig.ts';
import { startEtcd } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { stopAll } from '../../support/process.ts';
import { tool } from '../../support/tools.ts';

const run = promisify(execFile);

/** The identifier in a dig answer (`; NSID: 72 65 ("re")`) or a kdig one (`;; NSID: 7265 "re"`), or undefined. */
function nsidOf(raw: string): string | undefined {
  const m = /^;;? NSID: [0-9a-f ]+\(?"([^"]*)"\)?$/im.exec(raw);
  return m?.[1];
}

async function kdig(port: number, name: string, type: string, tcp: boolean, extra: string[] = []): Promise<DigResult> {
  const args = ['@127.0.0.1', '-p', String(port), name, type, '+norecurse', '+time=2', '+retry=0', ...extra];
  const { stdout } = await run(tool('kdig'), [...args, ...(tcp ? ['+tcp'] : [])], { timeout: 10_000 });
  return { ...parseDig(stdout), status: /status: ([A-Z]+)/.exec(stdout)?.[1] ?? '' };
}

type Client = 'dig' | 'kdig';
const ask = (client: Client, server: EtcdnsServerHandle, name: string, type: string, tcp: boolean, extra: string[]) =>
  client === 'dig' ? dig({ port: server.port, name, type, tcp, extra }) : kdig(server.port, name, type, tcp, extra);

let named: EtcdnsServerHandle;
let byDefault: EtcdnsServerHandle;
let off: EtcdnsServerHandle;

before(async () => {
  const etcd = await startEtcd();
  await etcd
    .client()
    .put('/skydns/org/example/www')
    .value(JSON.stringify({ host: '192.0.2.1' }));
  const start = (args: string[]) => startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'], args });
  [named, byDefault, off] = await Promise.all([
    start(['--identity', 'replica-a', '--answer-version']),
    start([]),
    start(['--identity-enabled=false', '--answer-version']),
  ]);
});
after(stopAll);

for (const client of ['dig', 'kdig'] as const) {
  for (const tcp of [false, true]) {
    const over = `${client}, ${tcp ? 'TCP' : 'UDP'}`;

    test(`NSID: asked, the identifier; not asked, none, also from the cache (${over})`, async () => {
      // Each order once: the first question fills the cache, the next are answered from it.
      for (const first of [false, true]) {
        const name = `www.example.org.`;
        for (const nsid of [first, !first, first]) {
          const r = await ask(client, named, name, 'A', tcp, nsid ? ['+nsid'] : []);
          assert.equal(r.status, 'NOERROR', r.raw);
          assert.deepEqual(
            r.answer.map((a) => a.data),
            ['192.0.2.1'],
            r.raw,
          );
          assert.equal(nsidOf(r.raw), nsid ? 'replica-a' : undefined, r.raw);
        }
      }
    });

    test(`NSID: in a negative answer and a refusal too (${over})`, async () => {
      for (const [name, status] of [
        ['nothing.example.org.', 'NXDOMAIN'],
        ['www.elsewhere.test.', 'REFUSED'],
      ] as const) {
        const r = await ask(client, named, name, 'A', tcp, ['+nsid']);
        assert.equal(r.status, status, r.raw);
        assert.equal(nsidOf(r.raw), 'replica-a', r.raw);
      }
    });

    test(`NSID: the host name by default, none when turned off (${over})`, async () => {
      assert.equal(nsidOf((await ask(client, byDefault, 'www.example.org.', 'A', tcp, ['+nsid'])).raw), hostname());
      const r = await ask(client, off, 'www.example.org.', 'A', tcp, ['+nsid']);
      assert.equal(r.status, 'NOERROR', r.raw);
      assert.equal(nsidOf(r.raw), undefined, r.raw);
    });
  }
}

// [case, server, name, TXT answered (undefined: REFUSED)]
const chaos: [string, () => EtcdnsServerHandle, string, string | undefined][] = [
  ['id.server., identity given', () => named, 'id.server.', 'replica-a'],
  ['hostname.bind., identity given', () => named, 'hostname.bind.', 'replica-a'],
  ['version.bind., version on', () => named, 'version.bind.', `etcdns ${VERSION}`],
  ['version.server., version on', () => named, 'version.server.', `etcdns ${VERSION}`],
  ['authors.bind.: REFUSED', () => named, 'authors.bind.', undefined],
  ['www.example.org. in CHAOS: REFUSED', () => named, 'www.example.org.', undefined],
  ['id.server., by default: the host name', () => byDefault, 'id.server.', hostname()],
  ['version.bind., by default: REFUSED', () => byDefault, 'version.bind.', undefined],
  ['version.server., by default: REFUSED', () => byDefault, 'version.server.', undefined],
  ['id.server., identity off: REFUSED', () => off, 'id.server.', undefined],
  ['hostname.bind., identity off: REFUSED', () => off, 'hostname.bind.', undefined],
];

for (const [name, server, qname, text] of chaos) {
  for (const tcp of [false, true]) {
    test(`dig CH TXT ${name} (${tcp ? 'TCP' : 'UDP'})`, async () => {
      const r = await dig({ port: server().port, name: qname, type: 'TXT', tcp, extra: ['-c', 'CH'] });
      assert.equal(r.status, text === undefined ? 'REFUSED' : 'NOERROR', r.raw);
      assert.deepEqual(
        r.answer.map((a) => [a.class, a.ttl, a.data]),
        text === undefined ? [] : [['CH', 0, `"${text}"`]],
        r.raw,
      );
    });
  }
}
