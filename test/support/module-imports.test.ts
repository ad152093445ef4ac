// The layer check the boundary tests share (arrowsNotDown): one row per arrow it must catch, and
// the arrows it must let pass.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { arrowsNotDown } from './module-imports.ts';

const LAYERS = [['top'], ['a', 'b'], ['base']] as const;
type F = (typeof LAYERS)[number][number];
const none: Record<F, F[]> = { top: [], a: [], b: [], base: [] };

const rows: [string, Partial<Record<F, F[]>>, string[]][] = [
  ['down one layer and two', { top: ['a', 'base'], a: ['base'] }, []],
  ['up (base imports a)', { base: ['a'] }, ['base -> a']],
  ['within a layer (a imports b)', { a: ['b'] }, ['a -> b']],
  ['to the top', { b: ['top'] }, ['b -> top']],
];
for (const [name, allowed, expected] of rows)
  test(`arrowsNotDown: ${name}`, () => {
    assert.deepEqual(arrowsNotDown(LAYERS, { ...none, ...allowed }), expected);
  });
