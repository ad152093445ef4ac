// The catalog zone (RFC 9432) with real consumers: BIND 9 (catalog-zones) and Knot (catalog-role
// interpret, members from a template), each configured with the catalog alone, TSIG-signed,
// NOTIFYed by etcdns. A zone added to etcdns's configuration (a restart, as a changed ConfigMap
// rolls the pods) appears on both and answers; a zone removed from it goes from both.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { startBindSecondary, type BindSecondaryHandle } from '../../../support/bind-secondary.ts';
import { dig } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { startKnotSecondary, type KnotSecondaryHandle } from '../../../support/knot-secondary.ts';
import { freePort } from '../../../support/ports.ts';
import { stopAll, waitFor } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { transferArgs, writeKeyFile, type TsigKeySpec } from '../../../support/tsig-key.ts';

after(stopAll);

const CATALOG = 'catalog.etcdns.invalid.';
const KEY: TsigKeySpec = {
  name: 'xfr.catalog.test',
  algorithm: 'hmac-sha256',
  secret: Buffer.from('etcdns catalog zone test secret').toString('base64'),
};
/** Each zone's www address: a secondary answering it holds the zone. */
const ZONES: Record<string, string> = {
  'example.org.': '10.0.1.1',
  'example.net.': '10.0.2.1',
  'example.com.': '10.0.3.1',
};

/** The SkyDNS keys of a zone: a name server (secondaries refuse a zone without NS) and www. */
function zoneKeys(zone: string): [string, object][] {
  const path = `/skydns/${zone.slice(0, -1).split('.').reverse().join('/')}`;
  return [
    [`${path}/dns/ns/ns1`, { host: '127.0.0.1' }],
    [`${path}/www`, { host: ZONES[zone]! }],
  ];
}

async function soaSerial(port: number, zone: string): Promise<number | undefined> {
  const r = await dig({ port, name: zone, type: 'SOA', timeoutSeconds: 1 });
  const soa = r.answer.find((a) => a.type === 'SOA');
  return r.status === 'NOERROR' && soa ? Number(soa.data.split(' ')[2]) : undefined;
}

/** Whether the server answers www of the zone with its address, authoritatively. */
async function answersZone(port: number, zone: string): Promise<boolean> {
  const r = await dig({ port, name: `www.${zone}`, type: 'A', timeoutSeconds: 1 });
  return r.status === 'NOERROR' && r.flags.includes('aa') && r.answer.some((a) => a.data === ZONES[zone]);
}

describe('catalog zone: BIND and Knot configured with the catalog alone', () => {
  let etcd: EtcdHandle;
  let etcdns: EtcdnsServerHandle | undefined;
  let bind: BindSecondaryHandle;
  let knot: KnotSecondaryHandle;
  let port: number;
  let keyFile: string;
  let notifyPorts: number[];

  /** etcdns (again) on the same port, serving these zones and their catalog. */
  const startWith = async (zones: string[]) => {
    await etcdns?.stop();
    etcdns = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones,
      port,
      args: [...transferArgs(notifyPorts, keyFile), '--catalog-zone', CATALOG],
    });
    return { ready: performance.now(), serial: (await soaSerial(port, CATALOG))! };
  };

  /** Waits (bounded) until `check` holds for a secondary; the ms it took from `since`. */
  const until = async (who: string, what: string, since: number, check: () => Promise<boolean>) => {
    await waitFor(`${what} on ${who}`, async () => ((await check()) ? true : undefined), 30_000).catch((e: Error) => {
      const logs = who === 'BIND' ? bind.logs() : knot.process.logs();
      throw new Error(`${e.message}\n${logs.slice(-4000)}`);
    });
    return Math.round(performance.now() - since);
  };

  before(async () => {
    etcd = await startEtcd();
    const kv = etcd.client();
    for (const zone of Object.keys(ZONES))
      for (const [k, value] of zoneKeys(zone)) await kv.put(k).value(JSON.stringify(value));
    keyFile = writeKeyFile(tempDir('catalog-transfer'), KEY);
    port = await freePort();
    notifyPorts = [await freePort(), await freePort()];
  });
  after(async () => {
    await bind?.stop();
    await knot?.stop();
    await etcdns?.stop();
    await etcd?.stop();
  });

  test('both take the catalog and serve its members (their names answered authoritatively), nothing else', async () => {
    const { serial } = await startWith(['example.org.', 'example.net.']);
    const started = performance.now();
    [bind, knot] = await Promise.all([
      startBindSecondary({ zone: [], primaryPort: port, key: KEY, port: notifyPorts[0], catalogZone: CATALOG }),
      startKnotSecondary({ zone: [], primaryPort: port, key: KEY, port: notifyPorts[1], catalogZone: CATALOG }),
    ]);
    // Knot 3.2 answers no query for a catalog it interprets (REFUSED): its members show it took it.
    await until(
      'BIND',
      `the catalog at serial ${serial}`,
      started,
      async () => (await soaSerial(bind.port, CATALOG)) === serial,
    );
    for (const [who, secondary] of [
      ['BIND', bind.port],
      ['Knot', knot.port],
    ] as const) {
      let ms = 0;
      for (const zone of ['example.org.', 'example.net.'])
        ms = await until(who, `${zone} from the catalog`, started, () => answersZone(secondary, zone));
      console.log(`${who}: both member zones answered ${ms} ms after its start`);
      assert.equal(
        await answersZone(secondary, 'example.com.'),
        false,
        `${who} holds no zone the catalog does not list`,
      );
    }
  });

  test('the catalog as etcdns serves it and BIND took it: NS invalid., version "2", one PTR per member at its stable id', async () => {
    const id = (zone: string) => createHash('sha256').update(zone).digest('hex').slice(0, 16);
    // etcdns, and BIND as it took it (Knot does not answer for the catalog, above).
    for (const secondary of [port, bind.port]) {
      const version = await dig({ port: secondary, name: `version.${CATALOG}`, type: 'TXT' });
      assert.deepEqual(
        version.answer.map((a) => a.data),
        ['"2"'],
        `version on port ${secondary}`,
      );
      const ns = await dig({ port: secondary, name: CATALOG, type: 'NS' });
      assert.deepEqual(
        ns.answer.map((a) => a.data),
        ['invalid.'],
        `NS on port ${secondary}`,
      );
      for (const zone of ['example.org.', 'example.net.']) {
        const ptr = await dig({ port: secondary, name: `${id(zone)}.zones.${CATALOG}`, type: 'PTR' });
        assert.deepEqual(
          ptr.answer.map((a) => a.data),
          [zone],
          `${zone} at its id on port ${secondary}`,
        );
      }
    }
  });

  test('a zone added to the configuration appears on both within seconds of the restart and its NOTIFY', async () => {
    const before = (await soaSerial(port, CATALOG))!;
    const { ready, serial } = await startWith(['example.org.', 'example.net.', 'example.com.']);
    assert.ok(serial > before, `the catalog's serial moved up (${before} -> ${serial})`);
    for (const [who, secondary] of [
      ['BIND', bind.port],
      ['Knot', knot.port],
    ] as const) {
      const ms = await until(who, 'example.com. from the catalog', ready, () => answersZone(secondary, 'example.com.'));
      console.log(`catalog propagation, zone added: ${who} answered it ${ms} ms after etcdns was ready`);
      assert.equal(await answersZone(secondary, 'example.org.'), true, `${who} keeps the other members`);
    }
  });

  test('--workers 2: every worker answers the one catalog serial, also one restarted later', async () => {
    const pool = await startEtcdnsServer({
      etcdEndpoints: etcd.endpoints,
      zones: ['example.org.'],
      args: [...transferArgs([], keyFile), '--catalog-zone', CATALOG, '--workers', '2'],
    });
    try {
      const serials = async () => {
        const seen = new Set<number | undefined>();
        for (let i = 0; i < 40; i++) seen.add(await soaSerial(pool.port, CATALOG));
        return [...seen];
      };
      const [first] = await serials();
      assert.ok(first, 'the catalog is answered');
      // One worker ends; the pool starts another a second later, in a later second than the pool.
      const [worker] = execFileSync('pgrep', ['-P', String(pool.process.pid)])
        .toString()
        .trim()
        .split('\n');
      process.kill(Number(worker), 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await waitFor('both workers ready again', async () =>
        (await pool.http('/readyz')).status === 200 ? true : undefined,
      );
      assert.deepEqual(await serials(), [first]);
    } finally {
      await pool.stop();
    }
  });

  test('a zone removed from the configuration goes from both', async () => {
    const { ready } = await startWith(['example.org.', 'example.com.']);
    for (const [who, secondary] of [
      ['BIND', bind.port],
      ['Knot', knot.port],
    ] as const) {
      const ms = await until(who, 'example.net. gone', ready, async () => {
        const r = await dig({ port: secondary, name: 'www.example.net.', type: 'A', timeoutSeconds: 1 });
        return r.status === 'REFUSED';
      });
      console.log(`catalog propagation, zone removed: ${who} refused it ${ms} ms after etcdns was ready`);
      for (const zone of ['example.org.', 'example.com.'])
        assert.equal(await answersZone(secondary, zone), true, `${who} keeps ${zone}`);
    }
  });
});
