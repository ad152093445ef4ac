// The answer cache never serves an answer older than the copy it was made from: after a change is
// applied (the server's store revision has reached the write), the very next query sees it, for
// the name itself, names depending on it (wildcard, CNAME chain, glue, referral) and the SOA
// serial of negative answers. Real etcd, the real server, the real dig; every question is asked
// twice before the change, so the answer is cached when the change arrives.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Etcd3 } from 'etcd3';
import { dig, type DigResult } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../../support/etcdns-server.ts';
import { metricSum } from '../../../support/metrics-text.ts';
import { stopAll, waitFor } from '../../../support/process.ts';

after(stopAll);

const BASE: Record<string, string> = {
  '/skydns/org/example/www': '{"host":"10.0.0.1"}',
  '/skydns/org/example/gone': '{"host":"10.0.0.2"}',
  '/skydns/org/example/wild/*': '{"host":"10.0.1.1"}',
  '/skydns/org/example/alias': '{"host":"target.example.org"}',
  '/skydns/org/example/target': '{"host":"10.0.2.1"}',
  '/skydns/org/example/dns/ns/ns1': '{"host":"10.0.3.1"}',
  '/skydns/org/example/sub/dns/ns/a': '{"host":"10.0.4.1"}',
  '/skydns/org/example/newsub/deep': '{"host":"10.0.5.1"}',
  '/skydns/org/example/other': '{"host":"10.0.6.1"}',
};

/** The part of an answer a row compares: answer, authority and additional data, sorted. */
function shape(r: DigResult): string {
  const data = (records: DigResult['answer']) =>
    records
      .map((x) => `${x.name} ${x.type} ${x.data}`)
      .sort()
      .join(' | ');
  return `${r.status}; answer: ${data(r.answer)}; authority: ${data(r.authority)}; additional: ${data(r.additional)}`;
}

interface Row {
  what: string;
  name: string;
  type: string;
  change: (kv: Etcd3) => Promise<{ header: { revision: string } }>;
  /** What the answer after the change must contain (a substring of its shape). */
  expect: (before: DigResult) => RegExp;
}

const put = (key: string, value: string) => (kv: Etcd3) => kv.put(key).value(value).exec();

const ROWS: Row[] = [
  {
    what: 'the name itself',
    name: 'www.example.org',
    type: 'A',
    change: put('/skydns/org/example/www', '{"host":"10.0.0.9"}'),
    expect: () => /^NOERROR; answer: www\.example\.org\. A 10\.0\.0\.9;/,
  },
  {
    what: 'a deleted name',
    name: 'gone.example.org',
    type: 'A',
    change: (kv) => kv.delete().key('/skydns/org/example/gone').exec(),
    expect: () => /^NXDOMAIN; answer: ;/,
  },
  {
    what: 'a name answered by its wildcard parent',
    name: 'x.wild.example.org',
    type: 'A',
    change: put('/skydns/org/example/wild/*', '{"host":"10.0.1.9"}'),
    expect: () => /^NOERROR; answer: x\.wild\.example\.org\. A 10\.0\.1\.9;/,
  },
  {
    what: 'a name created where a wildcard answered',
    name: 'y.wild.example.org',
    type: 'A',
    change: put('/skydns/org/example/wild/y', '{"host":"10.0.1.7"}'),
    expect: () => /^NOERROR; answer: y\.wild\.example\.org\. A 10\.0\.1\.7;/,
  },
  {
    what: 'a CNAME chain whose target changed',
    name: 'alias.example.org',
    type: 'A',
    change: put('/skydns/org/example/target', '{"host":"10.0.2.9"}'),
    expect: () => /alias\.example\.org\. CNAME target\.example\.org\. \| target\.example\.org\. A 10\.0\.2\.9;/,
  },
  {
    what: "a negative answer's SOA serial after a change to another name",
    name: 'missing.example.org',
    type: 'A',
    change: put('/skydns/org/example/other', '{"host":"10.0.6.9"}'),
    expect: (before) => {
      const serial = Number(before.authority[0]!.data.split(/\s+/)[2]);
      return new RegExp(`^NXDOMAIN; answer: ; authority: example\\.org\\. SOA \\S+ \\S+ (?!${serial} )\\d+ `);
    },
  },
  {
    what: 'the NS glue of the apex',
    name: 'example.org',
    type: 'NS',
    change: put('/skydns/org/example/dns/ns/ns1', '{"host":"10.0.3.9"}'),
    expect: () => /additional: ns1\.ns\.dns\.example\.org\. A 10\.0\.3\.9$/,
  },
  {
    what: 'the referral above a delegated name',
    name: 'host.sub.example.org',
    type: 'A',
    change: put('/skydns/org/example/sub/dns/ns/a', '{"host":"10.0.4.9"}'),
    expect: () =>
      /^NOERROR; answer: ; authority: sub\.example\.org\. NS a\.ns\.dns\.sub\.example\.org\.; additional: a\.ns\.dns\.sub\.example\.org\. A 10\.0\.4\.9$/,
  },
  {
    what: 'a name that a new delegation above it takes over',
    name: 'deep.newsub.example.org',
    type: 'A',
    change: put('/skydns/org/example/newsub/dns/ns/a', '{"host":"10.0.5.53"}'),
    expect: () => /^NOERROR; answer: ; authority: newsub\.example\.org\. NS /,
  },
];

describe('the answer cache after a change', () => {
  let etcd: EtcdHandle;
  let kv: Etcd3;
  let server: EtcdnsServerHandle;

  before(async () => {
    etcd = await startEtcd();
    kv = etcd.client();
    for (const [key, value] of Object.entries(BASE)) await kv.put(key).value(value);
    server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: ['example.org'] });
  });
  after(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  const applied = async (revision: string) => {
    await waitFor(
      `store revision ${revision}`,
      async () =>
        metricSum((await server.http('/metrics')).body, 'etcdns_dns_store_revision') >= Number(revision) || undefined,
      5000,
      5,
    );
  };
  const ask = (name: string, type: string) => dig({ port: server.port, name, type });

  for (const row of ROWS) {
    test(`the very next query sees the change: ${row.what}`, async () => {
      await ask(row.name, row.type);
      const before = await ask(row.name, row.type);
      const { header } = await row.change(kv);
      await applied(header.revision);
      const next = await ask(row.name, row.type);
      assert.match(shape(next), row.expect(before), `before: ${shape(before)}`);
    });
  }

  test('a change to another name keeps this name cached (the cache is not emptied)', async () => {
    await ask('www.example.org', 'A');
    const { header } = await put('/skydns/org/example/other', '{"host":"10.0.6.10"}')(kv);
    await applied(header.revision);
    const hits = async () => metricSum((await server.http('/metrics')).body, 'etcdns_dns_cache_hits_total');
    const before = await hits();
    const next = await ask('www.example.org', 'A');
    assert.equal(next.answer[0]?.data, '10.0.0.9');
    assert.equal((await hits()) - before, 1);
  });
});
