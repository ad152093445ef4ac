// Ratios against the targets, and the printed table.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  beyondControl,
  CONTROL_TARGET,
  floorRatios,
  floorTargets,
  ratios,
  renderChurnReport,
  renderReport,
  targets,
  wrongAnswers,
  type ChurnMeasurement,
  type Measurement,
} from '../../bench/dns/report.ts';
import { median, percentile } from '../../bench/dns/stats.ts';

const m = (server: Measurement['server'], mode: Measurement['mode'], qps: number, p99Ms: number): Measurement => ({
  server,
  mode,
  qps,
  qpsRuns: [qps],
  cpuPerQueryUs: 1e6 / qps,
  lost: 0,
  lostPercent: 0,
  rcodes: { NOERROR: 9, NXDOMAIN: 1 },
  rate: 10000,
  p50Ms: p99Ms / 4,
  p99Ms,
  rateLost: 0,
  cpuPerQueryAtRateUs: 2e6 / qps,
});

// m() makes CPU per query 1e6 / QPS, so a QPS ratio r is a CPU ratio 1 / r.
test('targets: QPS >= CoreDNS, >= 0.3x Knot, p99 <= CoreDNS, >= 0.8x Knot, CPU/q <= 1.5x Knot, per mode', async (t) => {
  const cases = [
    {
      name: 'issue 4 met, issue 13 not (0.31x Knot)',
      ms: [m('etcdns', 'pinned', 50000, 0.2), m('coredns', 'pinned', 40000, 0.3), m('knot', 'pinned', 160000, 0.1)],
      met: [true, true, true, false, false],
    },
    {
      name: 'slower than CoreDNS, under 0.3x Knot, worse p99',
      ms: [m('etcdns', 'pinned', 30000, 0.5), m('coredns', 'pinned', 40000, 0.3), m('knot', 'pinned', 160000, 0.1)],
      met: [false, false, false, false, false],
    },
    {
      name: 'exactly on the thresholds counts as met (0.3x Knot)',
      ms: [
        m('etcdns', 'unpinned', 48000, 0.3),
        m('coredns', 'unpinned', 48000, 0.3),
        m('knot', 'unpinned', 160000, 0.1),
      ],
      met: [true, true, true, false, false],
    },
    {
      name: '0.8x Knot: QPS met, CPU 1.25x Knot met',
      ms: [m('etcdns', 'pinned', 80000, 0.2), m('coredns', 'pinned', 40000, 0.3), m('knot', 'pinned', 100000, 0.1)],
      met: [true, true, true, true, true],
    },
    {
      name: '0.6x Knot: CPU 1.67x Knot, neither met',
      ms: [m('etcdns', 'pinned', 60000, 0.2), m('coredns', 'pinned', 40000, 0.3), m('knot', 'pinned', 100000, 0.1)],
      met: [true, true, true, false, false],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, () =>
      assert.deepEqual(
        targets(ratios(c.ms)).map((x) => x.met),
        c.met,
      ),
    );
  }
});

test('response codes other than NOERROR and NXDOMAIN are reported as wrong answers', () => {
  const ok = m('etcdns', 'pinned', 1, 1);
  const bad = { ...m('coredns', 'pinned', 1, 1), rcodes: { NOERROR: 90, NXDOMAIN: 8, SERVFAIL: 2 } };
  assert.deepEqual(wrongAnswers([ok, bad]), ['WRONG ANSWERS coredns (pinned): SERVFAIL 2']);
  assert.match(renderReport([ok, bad]), /WRONG ANSWERS coredns \(pinned\): SERVFAIL 2/);
});

test('a mode with a server missing gives no ratios rather than NaN', () => {
  assert.deepEqual(ratios([m('etcdns', 'pinned', 1, 1), m('knot', 'pinned', 1, 1)]), []);
});

test('the table lists every measurement and the ratios', () => {
  const text = renderReport([
    m('etcdns', 'pinned', 50000, 0.2),
    m('coredns', 'pinned', 40000, 0.4),
    m('knot', 'pinned', 100000, 0.1),
  ]);
  assert.match(text, /\| pinned \| etcdns +\| +50000 \|/);
  // Last column: CPU per query in the fixed-rate run (m() makes it twice the flood's).
  assert.match(text, /\| pinned \| etcdns +\|.*\| +20\.0 \|.*\| +40\.0 \|$/m);
  // QPS and p99 against CoreDNS, QPS against Knot, CPU against CoreDNS and Knot; no floor: "-".
  assert.match(text, /\| pinned \| +1\.25 \| +0\.50 \| +0\.50 \| +0\.80 \| +2\.00 \| +- \| +- \| +- \|/);
  assert.match(text, /^met +QPS >= CoreDNS \(pinned\): 1\.25$/m);
  assert.match(text, /^NOT met +CPU\/q <= 1\.5x Knot \(pinned\): 2\.00$/m);
});

test('with the Node floor measured: ours against the floor, and the floor against Knot', () => {
  const [r] = ratios([
    m('etcdns', 'pinned', 40000, 0.2),
    m('coredns', 'pinned', 30000, 0.4),
    m('knot', 'pinned', 100000, 0.1),
    m('node-floor', 'pinned', 50000, 0.1),
  ]);
  assert.equal(r!.qpsVsFloor, 0.8);
  assert.equal(r!.cpuVsFloor, 1.25);
  assert.equal(r!.floorCpuVsKnot, 2);
});

test('issue 27: each etcdns build against the floor of its mode, CPU/q <= 1.2x and p99 <= 2x', async (t) => {
  // m() makes CPU per query 1e6 / QPS: 100,000 QPS is 10 µs, 125,000 is 8 µs.
  const ms = [
    m('etcdns', 'pinned', 100000, 0.8),
    m('etcdns-baseline', 'pinned', 80000, 2.0),
    m('node-floor', 'pinned', 125000, 0.4),
    m('knot', 'pinned', 160000, 0.1),
    m('etcdns', 'unpinned', 90000, 1.0),
  ];
  const rs = floorRatios(ms);
  await t.test('only etcdns builds, only where the floor ran', () =>
    assert.deepEqual(
      rs.map((r) => [r.server, r.mode]),
      [
        ['etcdns', 'pinned'],
        ['etcdns-baseline', 'pinned'],
      ],
    ),
  );
  await t.test('ratios and verdicts (1.25x and 2.0x: exactly on the p99 threshold counts as met)', () =>
    assert.deepEqual(
      floorTargets(rs).map((x) => [x.server, x.name, Number(x.value.toFixed(2)), x.met]),
      [
        ['etcdns', 'CPU/q <= 1.2x floor', 1.25, false],
        ['etcdns', 'p99 <= 2x floor', 2, true],
        ['etcdns-baseline', 'CPU/q <= 1.2x floor', 1.56, false],
        ['etcdns-baseline', 'p99 <= 2x floor', 5, false],
      ],
    ),
  );
  await t.test('the printed report has the floor table and its verdicts, GC where measured', () => {
    const text = renderReport([{ ...ms[0]!, gcPausesAtRate: 13, gcShareAtRate: 0.0021 }, ...ms.slice(1)]);
    assert.match(text, /\| pinned +\| etcdns +\| +1\.25 \| +2\.00 \| +13\.0 \| +0\.21 \|/);
    assert.match(text, /\| pinned +\| etcdns-baseline +\| +1\.56 \| +5\.00 \|/);
    assert.match(text, /NOT met {2}etcdns: CPU\/q <= 1\.2x floor \(pinned\): 1\.25/);
  });
});

test('percentiles are nearest-rank; the median of runs ignores one outlier', async (t) => {
  const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
  const cases = [
    { p: 50, want: 5 },
    { p: 99, want: 10 },
    { p: 90, want: 9 },
    { p: 0, want: 1 },
  ];
  for (const c of cases) await t.test(`p${c.p}`, () => assert.equal(percentile(values, c.p), c.want));
  assert.equal(median([100, 101, 5]), 100);
  assert.ok(Number.isNaN(percentile([], 50)));
});

test('churn: each row against the control of its mode and rate (Knot flooded while the same writes run)', async (t) => {
  const row = (
    server: 'etcdns' | 'knot',
    target: string,
    mode: 'pinned' | 'unpinned',
    writesPerSecond: number,
    qps: number,
    steadyQps: number,
    probedQps = NaN,
  ): ChurnMeasurement => ({
    server,
    mode,
    target,
    writesPerSecond,
    qps,
    steadyQps,
    probedQps,
    cpuPerQueryUs: 1,
    steadyCpuPerQueryUs: 1,
    freshnessP50Ms: NaN,
    freshnessP99Ms: NaN,
    writes: 10,
    stale: 0,
  });
  const all = [
    row('knot', CONTROL_TARGET, 'pinned', 100, 80, 100),
    row('knot', CONTROL_TARGET, 'pinned', 10, 100, 100),
    row('etcdns', 'other', 'pinned', 100, 36, 50, 30),
    row('etcdns', 'queried', 'pinned', 10, 45, 50),
    row('etcdns', 'other', 'unpinned', 100, 40, 50),
  ];
  const cases = [
    { name: 'same mode and rate: 0.72 / 0.80', m: all[2]!, want: 0.9 },
    { name: 'the 10 writes/s control for the 10 writes/s row', m: all[3]!, want: 0.9 },
    { name: 'no control in that mode', m: all[4]!, want: NaN },
    { name: 'the control itself', m: all[0]!, want: NaN },
  ];
  for (const c of cases)
    await t.test(c.name, () => assert.ok(Object.is(Number(beyondControl(c.m, all).toFixed(6)), c.want)));
  const text = renderChurnReport(all);
  // The probed flood's QPS / steady has its own column, after the CPU: '-' for the control.
  assert.match(
    text,
    /\| pinned +\| etcdns +\| other +\| +100 \| +36 \| +0\.72 \| +0\.90 \| +1\.0 \/ 1\.0 \| +0\.60 \|/,
  );
  assert.match(
    text,
    /\| pinned +\| knot +\| none \(control\) \| +100 \| +80 \| +0\.80 \| +- \| +1\.0 \/ 1\.0 \| +- \|.*\| +- \|$/m,
  );
});
