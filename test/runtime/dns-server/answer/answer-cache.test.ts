// The answer cache's bounds and invalidation, on its own: the byte budget drops the oldest
// answers, NXDOMAIN answers have a budget of their own (a flood of names that do not exist
// cannot push out the answers of names that do), and dropping a name's answers drops exactly
// them (one key or several under one name; shared answers on every change).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AnswerCache, type CachedAnswer } from '../../../../src/runtime/dns-server/answer/answer-cache.ts';

const answer = (rcode: number, bytes: number, ownName: string | undefined): CachedAnswer => {
  const encoded = Buffer.alloc(bytes);
  encoded[3] = rcode;
  return { encoded, serialAt: -1, zone: '', ownName };
};
const ok = (name: string, bytes = 100) => answer(0, bytes, name);
const nx = (name: string) => answer(3, 100, name);
const keys = (c: AnswerCache, candidates: string[]) => candidates.filter((k) => c.get(k));

test('the byte budget drops the oldest answers first', () => {
  // Each entry costs its bytes, its key and ~200 of overhead: three fit into 1,000, four do not.
  const c = new AnswerCache({ maxBytes: 1000 });
  for (const k of ['a', 'b', 'c', 'd']) c.set(k, ok(k));
  assert.deepEqual(keys(c, ['a', 'b', 'c', 'd']), ['b', 'c', 'd']);
  assert.ok(c.bytes <= 1000, `${c.bytes} bytes`);
});

test('an answer larger than the budget is kept alone rather than looping', () => {
  const c = new AnswerCache({ maxBytes: 500 });
  c.set('small', ok('small'));
  c.set('big', ok('big', 4000));
  assert.deepEqual(keys(c, ['small', 'big']), ['big']);
});

test('NXDOMAIN answers have their own budget: a flood of them keeps the other answers', () => {
  const c = new AnswerCache({ maxNxdomain: 3 });
  c.set('www', ok('www'));
  for (let i = 0; i < 100; i++) c.set(`random-${i}`, nx(`random-${i}`));
  assert.equal(c.size, 4, 'www and the three newest NXDOMAIN answers');
  assert.deepEqual(keys(c, ['www', 'random-96', 'random-97', 'random-98', 'random-99']), [
    'www',
    'random-97',
    'random-98',
    'random-99',
  ]);
});

test('invalidating a name drops its answers, one key or several, and every shared answer; nothing else', () => {
  const c = new AnswerCache();
  c.set('www A', ok('www'));
  c.set('www AAAA', ok('www'));
  c.set('api A', ok('api'));
  c.set('mail A', ok('mail'));
  c.set('cname chase', answer(0, 100, undefined));
  c.invalidate(['www', 'api']);
  assert.deepEqual(keys(c, ['www A', 'www AAAA', 'api A', 'mail A', 'cname chase']), ['mail A']);
  c.set('www A', ok('www'));
  c.set('www A', ok('www'));
  c.invalidate(['www']);
  assert.equal(c.size, 1, 'a replaced answer is counted once and dropped with its name');
});

test('clear empties everything, bytes included', () => {
  const c = new AnswerCache();
  c.set('a', ok('a'));
  c.set('b', nx('b'));
  c.clear();
  assert.deepEqual([c.size, c.bytes], [0, 0]);
});
