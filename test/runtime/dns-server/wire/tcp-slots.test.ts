// Table tests of the TCP slot rule (RFC 7766 6.2.3): which connections make room for a new one,
// and how the idle timeout shortens as the slots fill.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { idleTimeoutMs, makeRoom } from '../../../../src/runtime/dns-server/wire/tcp-slots.ts';

/** Open connections least recently active first: "i" idle, "q" a query in flight. */
const slots = (states: string) => [...states].map((s, i) => ({ id: i, inFlight: s === 'q' ? 1 : 0 }));

// [case, open connections (least recently active first), bound, ids closed, new one admitted]
const rooms: [string, string, number, number[], boolean][] = [
  ['room left: nothing closed', 'iii', 4, [], true],
  ['none open', '', 1, [], true],
  ['at the bound: the least recently active idle one', 'iiii', 4, [0], true],
  ['in-flight ones are kept, the oldest idle one goes', 'qqiqi', 5, [2], true],
  ['over the bound (lowered): as many as needed to fit one more', 'iiiiii', 4, [0, 1, 2], true],
  ['every one has a query in flight: refused, nothing closed', 'qqq', 3, [], false],
  ['too few idle ones: those closed, the new one still refused', 'qiqiqq', 4, [1, 3], false],
  ['a bound of one: the only idle one makes room', 'i', 1, [0], true],
];

for (const [name, states, max, closed, admit] of rooms) {
  test(`makeRoom: ${name}`, () => {
    const open = slots(states);
    const room = makeRoom(open, open.length, max);
    assert.deepEqual(
      room.close.map((s) => s.id),
      closed,
    );
    assert.equal(room.admit, admit);
  });
}

// [case, open, bound, configured ms, idle timeout ms]
const timeouts: [string, number, number, number, number][] = [
  ['empty: as configured', 0, 4096, 10_000, 10_000],
  ['half full: as configured', 2048, 4096, 10_000, 10_000],
  ['over half: a fifth', 2049, 4096, 10_000, 2_000],
  ['three quarters: a fifth', 3072, 4096, 10_000, 2_000],
  ['over three quarters: a twentieth', 3073, 4096, 10_000, 500],
  ['full: a twentieth', 4096, 4096, 10_000, 500],
  ['full, 1 s configured: never below 100 ms', 4096, 4096, 1_000, 100],
  ['full, configured below 100 ms (tests): as configured', 10, 10, 50, 50],
];

for (const [name, open, max, configured, want] of timeouts) {
  test(`idleTimeoutMs: ${name}`, () => {
    assert.equal(idleTimeoutMs(open, max, configured), want);
  });
}
