// dnsperf's report, as dnsperf 2.10 prints it, read into figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dnsperfArgs, parseDnsperf } from '../../bench/dns/dnsperf.ts';

const report = (body: string, codes: string) => `DNS Performance Testing Tool
Version 2.10.0

[Status] Command line: dnsperf -s 127.0.0.1 -p 5353 -d q.txt -l 2 -c 20 -Q 2000 -v
[Status] Sending queries (to 127.0.0.1:5353)
${body}[Status] Testing complete (time limit)

Statistics:

  Queries sent:         4000
  Queries completed:    3990 (99.75%)
  Queries lost:         10 (0.25%)

  Response codes:       ${codes}
  Average packet size:  request 33, response 68
  Run time (s):         2.000161
  Queries per second:   1994.839013

  Average Latency (s):  0.000062 (min 0.000018, max 0.003339)
  Latency StdDev (s):   0.000094

`;

test('reads counts, QPS, response codes and per-query latencies', async (t) => {
  const cases = [
    {
      name: 'flood run without -v',
      text: report('', 'NOERROR 3591 (90.00%), NXDOMAIN 399 (10.00%)'),
      rcodes: { NOERROR: 3591, NXDOMAIN: 399 },
      latencies: [],
    },
    {
      name: 'fixed-rate run with -v; lost queries ("T") carry no latency',
      text: report(
        '> NOERROR svc-00001.bench.example.org. A 0.000163\n> T gone-00001.bench.example.org. A\n> NXDOMAIN gone-00002.bench.example.org. A 0.000066\n',
        'NOERROR 2 (66.67%), NXDOMAIN 1 (33.33%)',
      ),
      rcodes: { NOERROR: 2, NXDOMAIN: 1 },
      latencies: [0.000163, 0.000066],
    },
    {
      name: 'a server that refuses everything',
      text: report('', 'REFUSED 3990 (100.00%)'),
      rcodes: { REFUSED: 3990 },
      latencies: [],
    },
    { name: 'no answers at all', text: report('', ''), rcodes: {}, latencies: [] },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const r = parseDnsperf(c.text);
      assert.equal(r.sent, 4000);
      assert.equal(r.completed, 3990);
      assert.equal(r.lost, 10);
      assert.equal(r.qps, 1994.839013);
      assert.equal(r.averageLatency, 0.000062);
      assert.deepEqual(r.rcodes, c.rcodes);
      assert.deepEqual(r.latencies, c.latencies);
    });
  }
});

test('an output without statistics (dnsperf failed) is an error, not zeros', () => {
  assert.throws(() => parseDnsperf('[Status] Command line: dnsperf\nError: could not open file\n'), /Queries sent/);
});

test('command line: always loopback and bounded by -l; -Q, -q and -v only when asked', async (t) => {
  const base = { port: 5353, queryFile: '/tmp/q', seconds: 10, clients: 20 };
  const cases = [
    { name: 'flood', o: base, want: ['-s', '127.0.0.1', '-p', '5353', '-d', '/tmp/q', '-l', '10', '-c', '20'] },
    {
      name: 'fixed rate with latencies',
      o: { ...base, rate: 10000, perQuery: true },
      want: ['-s', '127.0.0.1', '-p', '5353', '-d', '/tmp/q', '-l', '10', '-c', '20', '-Q', '10000', '-v'],
    },
    {
      name: 'more outstanding queries',
      o: { ...base, outstanding: 500 },
      want: ['-s', '127.0.0.1', '-p', '5353', '-d', '/tmp/q', '-l', '10', '-c', '20', '-q', '500'],
    },
  ];
  for (const c of cases) await t.test(c.name, () => assert.deepEqual(dnsperfArgs(c.o), c.want));
});
