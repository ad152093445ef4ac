// Table tests of a hub's merge of one name across member clusters (answer/cluster-merge.ts): which
// clusters' entries answer, in which order, under each policy, with clusters counting or gone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  mergeName,
  type Contribution,
  type MergePolicy,
} from '../../../../src/runtime/dns-server/answer/cluster-merge.ts';

const ALL: MergePolicy = { kind: 'all' };
const FAILOVER: MergePolicy = { kind: 'failover', order: ['dc2', 'dc1'] };
const PREFER: MergePolicy = { kind: 'prefer', alone: false };
const ALONE: MergePolicy = { kind: 'prefer', alone: true };
const WEIGHTED: MergePolicy = { kind: 'weighted', weights: { dc1: 3, dc2: 1 } };

/** "dc1" counts and has one entry "dc1"; "dc1-" is gone (its lease expired); "dc1_" publishes nothing. */
function contributions(spec: string): Contribution<string>[] {
  return spec.split(' ').map((s) => {
    const cluster = s.replace(/[-_]$/, '');
    return { cluster, counts: !s.endsWith('-'), entries: s.endsWith('_') ? [] : [cluster] };
  });
}

// [case, policy, contributions (hub order), client's site, entries answered, stale]
const rows: [string, MergePolicy, string, string | undefined, string[], boolean][] = [
  ['all: every counting cluster, in hub order', ALL, 'dc1 dc2 dc3', undefined, ['dc1', 'dc2', 'dc3'], false],
  ['all: a gone cluster is left out', ALL, 'dc1 dc2- dc3', undefined, ['dc1', 'dc3'], false],
  ['all: a cluster without entries adds none', ALL, 'dc1_ dc2', undefined, ['dc2'], false],
  ['all: the client site changes nothing', ALL, 'dc1 dc2', 'dc2', ['dc1', 'dc2'], false],
  ['all: every contributor gone: serve-stale, all of them', ALL, 'dc1- dc2-', undefined, ['dc1', 'dc2'], true],
  ['all: no contributor at all: nothing, not stale', ALL, 'dc1_ dc2_', undefined, [], false],
  ['failover: the first of the order, not of the hub', FAILOVER, 'dc1 dc2', undefined, ['dc2'], false],
  ['failover: the first gone, the next one', FAILOVER, 'dc1 dc2-', undefined, ['dc1'], false],
  ['failover: the first without entries, the next one', FAILOVER, 'dc1 dc2_', undefined, ['dc1'], false],
  ['failover: an unlisted cluster only after every listed one', FAILOVER, 'dc3 dc1 dc2-', undefined, ['dc1'], false],
  ['failover: listed ones gone, an unlisted one', FAILOVER, 'dc1- dc2- dc3', undefined, ['dc3'], false],
  ['failover: all gone: serve-stale, all of them', FAILOVER, 'dc1- dc2-', undefined, ['dc1', 'dc2'], true],
  ['prefer: the client site first, then the others', PREFER, 'dc1 dc2 dc3', 'dc2', ['dc2', 'dc1', 'dc3'], false],
  ['prefer: from no site, as all', PREFER, 'dc1 dc2', undefined, ['dc1', 'dc2'], false],
  ['prefer: the site gone, the others', PREFER, 'dc1 dc2-', 'dc2', ['dc1'], false],
  ['prefer: the site publishes nothing, the others', PREFER, 'dc1 dc2_', 'dc2', ['dc1'], false],
  ['prefer alone: only the client site', ALONE, 'dc1 dc2 dc3', 'dc2', ['dc2'], false],
  ['prefer alone: the site gone, the others as fallback', ALONE, 'dc1 dc2- dc3', 'dc2', ['dc1', 'dc3'], false],
  ['prefer alone: from no site, as all', ALONE, 'dc1 dc2', undefined, ['dc1', 'dc2'], false],
  ['prefer alone: all gone: serve-stale', ALONE, 'dc1- dc2-', 'dc1', ['dc1', 'dc2'], true],
];

// [case, contributions, the answer's draw (none: a zone transfer), entries answered, drawn (the answer is this query's alone)]
const weightedRows: [string, string, number | undefined, string[], boolean?][] = [
  ['weighted 3:1, a draw in the first three quarters: dc1', 'dc1 dc2', 0.74, ['dc1'], true],
  ['weighted 3:1, a draw in the last quarter: dc2', 'dc1 dc2', 0.75, ['dc2'], true],
  ['weighted: the lowest draw, the first cluster', 'dc1 dc2', 0, ['dc1'], true],
  ['weighted: the highest draw, the last cluster', 'dc1 dc2', 0.999, ['dc2'], true],
  ['weighted: a gone cluster is never drawn (one left: no draw)', 'dc1- dc2', 0.1, ['dc2']],
  ['weighted: a cluster without weight only when no weighted one counts', 'dc1- dc2- dc3', 0.5, ['dc3']],
  ['weighted: a cluster without weight is never drawn beside weighted ones', 'dc3 dc2', 0.1, ['dc2'], true],
  ['weighted, no draw (a zone transfer): as all', 'dc1 dc2', undefined, ['dc1', 'dc2']],
  ['weighted: all gone: serve-stale, all of them', 'dc1- dc2-', 0.5, ['dc1', 'dc2']],
];

for (const [name, spec, draw, want, drawn = false] of weightedRows) {
  test(`mergeName: ${name}`, () => {
    const merged = mergeName(WEIGHTED, contributions(spec), { draw });
    assert.deepEqual(merged.entries, want);
    assert.equal(merged.drawn, drawn);
  });
}

for (const [name, policy, spec, site, want, stale] of rows) {
  test(`mergeName: ${name}`, () => {
    const merged = mergeName(policy, contributions(spec), { site });
    assert.deepEqual(merged.entries, want);
    assert.deepEqual(merged.from, want);
    assert.equal(merged.stale, stale);
  });
}
