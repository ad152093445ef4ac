// The pure parts of the status pages, one row per case: escaping, what a search matches, since
// when a problem exists, and the controller's page and summary from a given status.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ControllerStatus } from '../../../src/runtime/controller/controller.ts';
import type { DesiredRecord, ObjectRef, Problem } from '../../../src/runtime/controller/desired-record.ts';
import { ProblemTimes } from '../../../src/runtime/controller/problem-times.ts';
import { controllerPage, controllerSummary } from '../../../src/runtime/controller/controller-page.ts';
import { RecordIndex } from '../../../src/runtime/dns-server/store/record-index.ts';
import { escapeHtml, html } from '../../../src/runtime/status-page/html.ts';
import { searchCopy } from '../../../src/runtime/dns-server/server-page.ts';
import { ROW_LIMIT } from '../../../src/runtime/status-page/status-layout.ts';
import { matches, searchTerm } from '../../../src/runtime/status-page/status-search.ts';
import { ref } from '../controller/object-ref.ts';

const escapes: [string, string, string][] = [
  ['script element', '<script>alert(1)</script>', '&lt;script&gt;alert(1)&lt;/script&gt;'],
  ['attribute breakout', '" onmouseover="x', '&quot; onmouseover=&quot;x'],
  ['single quotes', "' autofocus onfocus='x", '&#39; autofocus onfocus=&#39;x'],
  ['entity', '&lt;', '&amp;lt;'],
  ['plain text', 'shop.example.org', 'shop.example.org'],
];
for (const [what, input, output] of escapes)
  test(`escaped: ${what}`, () => {
    assert.equal(escapeHtml(input), output);
    assert.equal(html`<td title="${input}">${input}</td>`.text, `<td title="${output}">${output}</td>`);
  });

test('html: nested templates are kept, arrays joined, undefined and false leave nothing', () => {
  const inner = html`<b>${'<i>'}</b>`;
  assert.equal(html`${inner}${['<', html`<i>y</i>`]}${undefined}${false}${0}`.text, '<b>&lt;i&gt;</b>&lt;<i>y</i>0');
});

const searches: [string, string, (string | undefined)[], boolean][] = [
  ['no term matches all', '', ['x'], true],
  ['part of a name', 'shop', ['shop.example.org'], true],
  ['a name with its final dot', 'shop.example.org.', ['shop.example.org'], true],
  ['case does not matter (terms arrive lower-cased)', 'shop', ['SHOP.example.org'], true],
  ['an object reference', 'service/default/db', ['service/default/db'], true],
  ['an address', '10.9.176.2', ['10.9.176.213'], true],
  ['nothing of it', 'mail', ['shop.example.org', undefined], false],
];
for (const [what, term, fields, expected] of searches)
  test(`search: ${what}`, () => assert.equal(matches(term, ...fields), expected));

test('search term: trimmed, lower case, bounded', () => {
  assert.equal(searchTerm(new URL('http://x/status?q=%20Shop.Example.ORG%20')), 'shop.example.org');
  assert.equal(searchTerm(new URL('http://x/status')), '');
  assert.equal(searchTerm(new URL(`http://x/status?q=${'a'.repeat(1000)}`)).length, 255);
});

const problem = (name: string, reason: Problem['reason'] = 'InvalidHostname'): Problem => ({
  object: ref(`service/default/${name.replace(/\W/g, '')}`),
  reason,
  message: `hostname "${name}" is not valid`,
  name,
});

test('problem times: a problem keeps its first time while it lasts, and starts again after it went away', () => {
  const times = new ProblemTimes();
  const t0 = new Date('2026-01-01T00:00:00Z');
  const t1 = new Date('2026-01-01T00:01:00Z');
  const t2 = new Date('2026-01-01T00:02:00Z');
  times.update([problem('a'), problem('a')], t0);
  assert.deepEqual(
    times.list().map((p) => p.since),
    [t0],
    'found twice in one sync: one problem',
  );
  times.update([problem('a'), problem('b')], t1);
  assert.deepEqual(
    times.list().map((p) => [p.problem.name, p.since]),
    [
      ['a', t0],
      ['b', t1],
    ],
  );
  times.update([problem('b')], t2);
  times.update([problem('a'), problem('b')], t2);
  assert.deepEqual(
    times.list().map((p) => [p.problem.name, p.since]),
    [
      ['a', t2],
      ['b', t1],
    ],
  );
});

/** An object of any kind (an HTTPRoute here): the pages know objects by kind/namespace/name only. */
const route = (namespace: string, name: string) =>
  ({ kind: 'HTTPRoute', apiVersion: 'gateway.networking.k8s.io/v1', namespace, name }) as unknown as ObjectRef;
const record = (name: string, target: string, routeName: string): DesiredRecord => ({
  name,
  type: 'A',
  target,
  object: route('team-a', routeName),
});

function status(names: number): ControllerStatus {
  const published = new Map<string, DesiredRecord[]>();
  for (let i = 0; i < names; i++) {
    const name = `n${String(i).padStart(4, '0')}.example.org.`;
    published.set(name, [record(name, `10.0.${Math.floor(i / 250)}.${i % 250}`, `r${i}`)]);
  }
  return {
    views: [
      {
        name: 'internal',
        prefix: '/skydns',
        exposure: 'internal',
        published,
        decisions: [
          {
            name: 'n0000.example.org.',
            type: 'A',
            target: '10.0.0.0',
            resource: 'httproute/team-a/r0',
            outcome: 'published',
            published: [{ type: 'A', target: '10.0.0.0' }],
          },
          {
            name: 'gone.example.org.',
            type: 'A',
            target: '192.168.1.1',
            resource: 'dnsendpoint/team-b/gone',
            outcome: 'refused',
            rule: 'annotation etcdns.io/external-target',
            published: [],
          },
        ],
      },
    ],
    problems: [{ problem: problem('<b>x</b>', 'InvalidHostname'), since: new Date('2026-01-01T00:00:00Z') }],
    lastSync: { at: new Date('2026-01-01T00:05:00Z'), outcome: 'unchanged' },
    lastCompleted: new Date('2026-01-01T00:05:00Z'),
    leader: true,
    readiness: { ready: true, detail: 'caches synced, etcd reachable, leader' },
  };
}

test('controller page: any object kind by its reference; refused names listed; rows capped, searches narrow', async () => {
  const page = await controllerPage(status(ROW_LIMIT + 50), 'pod-1', '', new Date('2026-01-01T00:06:00Z'));
  assert.match(page, /httproute\/team-a\/r0/);
  assert.match(page, /<td class="name">gone\.example\.org<\/td>/);
  assert.match(page, /nothing published/);
  assert.match(page, /dnsendpoint\/team-b\/gone<\/span>: A 192\.168\.1\.1 → <span class="refused">refused<\/span>/);
  assert.equal([...page.matchAll(/<td class="name">(n\d{4}|gone)\.example\.org<\/td>/g)].length, ROW_LIMIT);
  assert.match(page, /51 more: search to narrow/, '250 names, the refused one included, 200 shown');
  assert.match(page, /&lt;b&gt;x&lt;\/b&gt;/);
  assert.doesNotMatch(page, /<b>x<\/b>/);
  const narrowed = await controllerPage(status(ROW_LIMIT + 50), 'pod-1', 'httproute/team-a/r249');
  assert.deepEqual(
    [...narrowed.matchAll(/<td class="name">(n\d{4})\.example\.org<\/td>/g)].map((m) => m[1]),
    ['n0249'],
  );
});

test('controller summary: leader, last sync, names per view, problems with since', async () => {
  const summary = await controllerSummary(status(3), 'pod-1', 300);
  assert.equal(summary.resyncSeconds, 300);
  assert.deepEqual(summary.views, [{ name: 'internal', prefix: '/skydns', exposure: 'internal', names: 4 }]);
  assert.equal(summary.lastSync?.outcome, 'unchanged');
  assert.deepEqual(summary.problems, [
    {
      since: '2026-01-01T00:00:00.000Z',
      reason: 'InvalidHostname',
      object: { kind: 'Service', namespace: 'default', name: 'bxb' },
      name: '<b>x</b>',
      message: 'hostname "<b>x</b>" is not valid',
    },
  ]);
});

test('controller page: names a view does not take appear only in a search; a record left out of the answers says so', async () => {
  const base = status(1);
  const view = base.views[0]!;
  const published = new Map(view.published);
  published.set('www.example.org.', [record('www.example.org.', '10.1.0.1', 'svc-www')]);
  const s: ControllerStatus = {
    ...base,
    views: [
      {
        ...view,
        published,
        decisions: [
          ...view.decisions,
          {
            name: 'intern.example.org.',
            type: 'A',
            target: '10.2.0.1',
            resource: 'httproute/team-a/intern',
            outcome: 'not-selected',
            published: [],
          },
          {
            name: 'www.example.org.',
            type: 'A',
            target: '10.1.0.2',
            resource: 'httproute/team-a/other',
            outcome: 'published',
            published: [{ type: 'A', target: '10.1.0.2' }],
          },
        ],
      },
    ],
  };
  const page = await controllerPage(s, 'pod-1', '');
  assert.doesNotMatch(page, /intern\.example\.org/);
  assert.match(page, /\(internal, prefix \/skydns\): 3 names</);
  assert.match(page, /httproute\/team-a\/other<\/span>: A 10\.1\.0\.2 → <span class="refused">left out of the answers/);
  const searched = await controllerPage(s, 'pod-1', 'intern');
  assert.match(searched, /<td class="name">intern\.example\.org<\/td><td><span class="note">not in this view<\/span>/);
  assert.match(
    searched,
    /httproute\/team-a\/intern<\/span>: A 10\.2\.0\.1 → <span class="not-selected">not-selected<\/span>/,
  );
});

test('server page search: by part of a name or an address, in slices, at most the limit + 1 keys', async () => {
  const kvs = Array.from({ length: 12_000 }, (_, i) => ({
    key: `/skydns/org/example/n${i}/1`,
    value: JSON.stringify({ host: `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}` }),
    modRevision: i + 1,
  }));
  const index = RecordIndex.fromSnapshot('/skydns', ['example.org.'], kvs, 12_000);
  const byAddress = await searchCopy(index, '10.0.46.223');
  assert.deepEqual(
    byAddress.map((f) => f.key),
    ['/skydns/org/example/n11999/1'],
  );
  assert.equal(byAddress[0]!.name, '1.n11999.example.org.');
  const byName = await searchCopy(index, 'n1199');
  assert.deepEqual(
    byName.map((f) => f.key).sort(),
    ['/skydns/org/example/n1199/1', ...Array.from({ length: 10 }, (_, i) => `/skydns/org/example/n1199${i}/1`)].sort(),
  );
  assert.equal((await searchCopy(index, 'example.org', 50)).length, 51, 'stops one past the limit');
});
