// The real BIND 9 as a secondary of etcdns zones (a forward zone and its reverse zone), with a
// TSIG key and with the address list alone: it transfers them, answers as etcdns does, follows
// changes (NOTIFY, rndc refresh, rndc retransfer), and gets nothing with a wrong key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBindSecondary, type BindSecondaryHandle } from '../../../support/bind-secondary.ts';
import { dig, type DigResult } from '../../../support/dig.ts';
import { digAxfr } from '../../../support/dig-axfr.ts';
import { answerDifferences, comparable } from '../../../support/dns-compare.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { freePort } from '../../../support/ports.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { transferArgs, writeKeyFile, type TsigKeySpec } from '../../../support/tsig-key.ts';

after(stopAll);

const ZONES = ['example.org.', '0.0.10.in-addr.arpa.'];
const KEY: TsigKeySpec = {
  name: 'xfr.example.org',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns BIND secondary test secret').toString('base64'),
};
const WRONG_KEY: TsigKeySpec = { ...KEY, secret: Buffer.from('not the secret, not at all').toString('base64') };

const RECORDS: Record<string, object> = {
  '/skydns/org/example/www': { host: '10.0.0.1' },
  '/skydns/org/example/www6': { host: '2001:db8::1' },
  '/skydns/org/example/multi/a1': { host: '10.0.0.2' },
  '/skydns/org/example/multi/a2': { host: '10.0.0.3' },
  '/skydns/org/example/alias': { host: 'www.example.org' },
  '/skydns/org/example/txt': { text: 'hello world' },
  '/skydns/org/example/mail': { host: 'mx.example.net', mail: true, priority: 10 },
  '/skydns/org/example/mx2': { host: '10.0.0.25', mail: true, priority: 20 },
  '/skydns/org/example/_tcp/_http/svc': { host: 'www.example.org', port: 8080 },
  '/skydns/org/example/_tcp/_ldap/dc1': { host: '10.0.0.5', port: 389 },
  '/skydns/org/example/wild/*': { host: '10.0.0.9' },
  '/skydns/org/example/dns/ns/ns1': { host: '127.0.0.1' },
  // A secondary refuses a zone without NS records at its apex (named: "has no NS records").
  '/skydns/arpa/in-addr/10/0/0/dns/ns/ns1': { host: 'ns1.ns.dns.example.org' },
  '/skydns/arpa/in-addr/10/0/0/1': { host: 'www.example.org' },
  '/skydns/arpa/in-addr/10/0/0/2': { host: 'a1.multi.example.org' },
};

// The answers users ask for, each compared with etcdns's own.
const LOOKUPS: { name: string; type: string }[] = [
  { name: 'www.example.org', type: 'A' },
  { name: 'www6.example.org', type: 'AAAA' },
  { name: 'multi.example.org', type: 'A' },
  { name: 'txt.example.org', type: 'TXT' },
  { name: 'alias.example.org', type: 'CNAME' },
  { name: 'alias.example.org', type: 'A' },
  { name: 'example.org', type: 'NS' },
  { name: 'x.wild.example.org', type: 'A' },
  { name: 'nothing.example.org', type: 'A' },
  { name: 'dc1._ldap._tcp.example.org', type: 'SRV' },
  { name: '_ldap._tcp.example.org', type: 'SRV' },
  { name: 'mx2.example.org', type: 'MX' },
  { name: 'svc._http._tcp.example.org', type: 'SRV' },
  { name: '1.0.0.10.in-addr.arpa', type: 'PTR' },
  { name: '2.0.0.10.in-addr.arpa', type: 'PTR' },
  { name: 'mail.example.org', type: 'MX' },
];

/** What differs between etcdns's and named's answers: rcode, AA and the answer section, SOA serial aside. */
function differences(ours: DigResult, theirs: DigResult): string[] {
  // The other sections differ by design: named adds the zone's NS and glue to positive answers.
  const main = (r: DigResult) => ({ ...comparable(r), authority: [], additional: [] });
  return answerDifferences(main(ours), main(theirs), ['etcdns', 'named']);
}

/** Waits (bounded) until `check` holds on named, failing with its recent logs. */
async function untilNamed(bind: BindSecondaryHandle, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  await waitFor(what, async () => ((await check()) ? true : undefined), 15_000).catch((e: Error) => {
    throw new Error(`${e.message}\n${bind.logs().slice(-3000)}`);
  });
  return Math.round(performance.now() - started);
}

async function hasZone(bind: BindSecondaryHandle, zone: string): Promise<boolean> {
  const r = await dig({ port: bind.port, name: zone, type: 'SOA', timeoutSeconds: 1 });
  return r.status === 'NOERROR' && r.answer.length > 0;
}

async function firstData(port: number, name: string, type: string): Promise<string | undefined> {
  const r = await dig({ port, name, type, timeoutSeconds: 1 });
  return r.answer.find((a) => a.type === type)?.data;
}

const transfersOf = (logs: string, zone: string) =>
  (logs.match(new RegExp(`transfer of '${zone}/IN' from .*Transfer status: success`, 'g')) ?? []).length;

for (const key of [KEY, undefined]) {
  describe(`BIND 9 as a secondary, ${key ? 'TSIG-signed' : 'by address only'}`, () => {
    let etcd: EtcdHandle;
    let server: EtcdnsServerHandle;
    let bind: BindSecondaryHandle;
    const digKey = key && `${key.algorithm}:${key.name}:${key.secret}`;

    before(async () => {
      etcd = await startEtcd();
      const kv = etcd.client();
      for (const [k, value] of Object.entries(RECORDS)) await kv.put(k).value(JSON.stringify(value));
      const keyFile = key && writeKeyFile(tempDir('bind-transfer'), key);
      // named's port is chosen first: etcdns is told to NOTIFY it.
      const bindPort = await freePort();
      server = await startEtcdnsServer({
        etcdEndpoints: etcd.endpoints,
        zones: ZONES,
        args: transferArgs([bindPort], keyFile),
      });
      bind = await startBindSecondary({ zone: ZONES, primaryPort: server.port, key, port: bindPort });
      let ms = 0;
      for (const zone of ZONES) ms += await untilNamed(bind, `${zone} on named`, () => hasZone(bind, zone));
      console.log(`named had both zones within ${ms} ms of its start`);
    });
    after(async () => {
      await bind?.stop();
      await server?.stop();
      await etcd?.stop();
    });

    test('named answers every transferred name as etcdns does', async () => {
      const diffs: string[] = [];
      let compared = 0;
      for (const zone of ZONES) {
        const { records, raw } = await digAxfr({ port: server.port, zone, key: digKey });
        assert.ok(records.length > 2, raw);
        const transferred = records.filter((r) => r.type !== 'TSIG');
        for (const name of new Set(transferred.map((r) => r.name.toLowerCase()))) {
          // Every type: the transfer holds exactly what etcdns answers (answers-equal-transfer.e2e.test.ts
          // compares authority sections too, against BIND with minimal responses).
          for (const type of ['SOA', 'NS', 'A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR']) {
            const [ours, theirs] = await Promise.all([
              dig({ port: server.port, name, type }),
              dig({ port: bind.port, name, type }),
            ]);
            for (const d of differences(ours, theirs)) diffs.push(`${name} ${type}: ${d}`);
            compared++;
          }
        }
      }
      assert.deepEqual(diffs, []);
      console.log(`${compared} questions answered alike`);
    });

    for (const { name, type } of LOOKUPS) {
      test(`named answers ${name} ${type} as etcdns does`, async () => {
        const ours = await dig({ port: server.port, name, type });
        const theirs = await dig({ port: bind.port, name, type });
        assert.deepEqual(differences(ours, theirs), [], `etcdns:\n${ours.raw}\nnamed:\n${theirs.raw}`);
      });
    }

    /** Puts `label` A `address` in etcd and waits until etcdns answers it. */
    async function change(label: string, address: string): Promise<void> {
      await etcd
        .client()
        .put(`/skydns/org/example/${label}`)
        .value(JSON.stringify({ host: address }));
      await waitFor('etcdns answers the change', async () =>
        (await firstData(server.port, `${label}.example.org`, 'A')) === address ? true : undefined,
      );
    }

    test('a change reaches named by NOTIFY alone (no rndc)', async () => {
      await change('notified', '10.0.0.70');
      const ms = await untilNamed(
        bind,
        'named answers the notified change',
        async () => (await firstData(bind.port, 'notified.example.org', 'A')) === '10.0.0.70',
      );
      assert.match(bind.logs(), /zone example\.org\/IN: notify from 127\.0\.0\.1#\d+/);
      console.log(`named answered the change ${ms} ms after etcdns did (NOTIFY)`);
    });

    test('after a change and a delete, rndc refresh brings them to named by IXFR', async () => {
      await change('refreshed', '10.0.0.71');
      await etcd.client().delete().key('/skydns/org/example/txt');
      await waitFor('etcdns answers the delete', async () =>
        (await dig({ port: server.port, name: 'txt.example.org', type: 'TXT' })).status === 'NXDOMAIN'
          ? true
          : undefined,
      );
      await bind.refresh();
      const ms = await untilNamed(bind, 'named answers the change and the delete', async () => {
        const removed = await dig({ port: bind.port, name: 'txt.example.org', type: 'TXT', timeoutSeconds: 1 });
        return (
          (await firstData(bind.port, 'refreshed.example.org', 'A')) === '10.0.0.71' && removed.status === 'NXDOMAIN'
        );
      });
      // named asks IXFR (request-ixfr yes): etcdns logs each transfer with the form it served.
      assert.match(server.process.logs(), /zone transferred.*"zone":"example\.org\.".*"form":"ixfr/);
      console.log(`named converged ${ms} ms after rndc refresh`);
    });

    test('after a change, rndc retransfer brings the whole zone again', async () => {
      await change('retransferred', '10.0.0.72');
      const transfers = transfersOf(bind.logs(), 'example.org');
      await bind.retransfer();
      const ms = await untilNamed(
        bind,
        'named answers the retransferred change',
        async () => (await firstData(bind.port, 'retransferred.example.org', 'A')) === '10.0.0.72',
      );
      await untilNamed(
        bind,
        'one more transfer logged',
        async () => transfersOf(bind.logs(), 'example.org') > transfers,
      );
      console.log(`named converged ${ms} ms after rndc retransfer`);
    });

    if (key) {
      test('named with a wrong key gets nothing: its refresh or transfer fails on TSIG', async () => {
        const wrong = await startBindSecondary({ zone: 'example.org.', primaryPort: server.port, key: WRONG_KEY });
        try {
          const failed =
            /zone example\.org\/IN: refresh: failure trying primary .*|transfer of 'example\.org\/IN' from .*Transfer status: (?!success).*/;
          await untilNamed(wrong, 'a failed refresh or transfer in named logs', async () => failed.test(wrong.logs()));
          const line = failed.exec(wrong.logs())![0];
          assert.match(line, /tsig|NOTAUTH|BADSIG/i);
          assert.equal(transfersOf(wrong.logs(), 'example.org'), 0, wrong.logs());
          const r = await dig({ port: wrong.port, name: 'www.example.org', type: 'A' });
          assert.equal(r.status, 'SERVFAIL', r.raw);
          console.log(`named with a wrong key: ${line}`);
        } finally {
          await wrong.stop();
        }
      });
    }
  });
}
