// The sync loop's timing rules, one test each, on Node's mocked timers: debounce, one sync at a
// time with one more after it when asked meanwhile, backoff after a failure (reset by a success),
// the periodic resync, nothing before start or after stop.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { SyncLoop } from '../../../src/runtime/controller/sync-loop.ts';

const DEBOUNCE = 50;
const RESYNC = 60_000;

/** A loop whose syncs are recorded (at mocked time) and end when the test says, with the outcome it says. */
function harness(t: TestContext, outcomes: string[] = []) {
  t.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
  const started: number[] = [];
  let finish: (() => void) | undefined;
  let resyncs = 0;
  const loop = new SyncLoop<string>({
    sync: () => {
      started.push(Date.now());
      const outcome = outcomes.shift() ?? 'applied';
      return new Promise((resolve) => (finish = () => resolve(outcome)));
    },
    debounceMs: DEBOUNCE,
    resyncMs: RESYNC,
    resync: () => {
      resyncs++;
      loop.trigger();
    },
  });
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    loop,
    started,
    resyncs: () => resyncs,
    /** Advances mocked time, letting promise callbacks run. */
    tick: async (ms: number) => {
      t.mock.timers.tick(ms);
      await settle();
    },
    /** Ends the running sync. */
    end: async () => {
      finish?.();
      finish = undefined;
      await settle();
    },
  };
}

test('nothing syncs before start: a trigger of a loop not started runs nothing', async (t) => {
  const h = harness(t);
  h.loop.trigger();
  await h.tick(10 * DEBOUNCE);
  assert.deepEqual(h.started, []);
});

test('start resyncs once at once; the sync runs after the debounce', async (t) => {
  const h = harness(t);
  h.loop.start();
  assert.equal(h.resyncs(), 1);
  await h.tick(DEBOUNCE - 1);
  assert.deepEqual(h.started, []);
  await h.tick(1);
  assert.deepEqual(h.started, [DEBOUNCE]);
});

test('triggers within the debounce make one sync', async (t) => {
  const h = harness(t);
  h.loop.start();
  for (let i = 0; i < 5; i++) {
    h.loop.trigger();
    await h.tick(5);
  }
  await h.tick(DEBOUNCE);
  await h.end();
  await h.tick(10 * DEBOUNCE);
  assert.equal(h.started.length, 1);
});

test('triggers during a sync make exactly one more, right after it (after its debounce)', async (t) => {
  const h = harness(t);
  h.loop.start();
  await h.tick(DEBOUNCE);
  h.loop.trigger();
  h.loop.trigger();
  await h.tick(1000);
  assert.equal(h.started.length, 1, 'one sync at a time');
  await h.end();
  await h.tick(DEBOUNCE);
  assert.deepEqual(h.started, [DEBOUNCE, DEBOUNCE + 1000 + DEBOUNCE]);
  await h.end();
  await h.tick(10 * DEBOUNCE);
  assert.equal(h.started.length, 2);
});

test('runAgain during a sync (names changed concurrently) makes one more', async (t) => {
  const h = harness(t);
  h.loop.start();
  await h.tick(DEBOUNCE);
  h.loop.runAgain();
  await h.end();
  await h.tick(DEBOUNCE);
  assert.equal(h.started.length, 2);
});

test('a failed sync is retried after 200, 400, 800 ms ... at most 5 s; a success resets the wait', async (t) => {
  const h = harness(t, ['error', 'error', 'error', 'error', 'error', 'error', 'error', 'applied', 'error']);
  h.loop.start();
  await h.tick(DEBOUNCE);
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    await h.end();
    const before = h.started.length;
    let waited = 0;
    while (h.started.length === before) {
      await h.tick(100);
      waited += 100;
    }
    waits.push(waited);
  }
  assert.deepEqual(waits, [200, 400, 800, 1600, 3200, 5000, 5000]);
  await h.end(); // the success
  h.loop.trigger();
  await h.tick(DEBOUNCE);
  await h.end(); // a failure again: the first wait again
  assert.equal(h.loop.retryMs, 400, 'the next wait after a first retry of 200 ms');
});

test('the periodic resync triggers a sync every resyncMs', async (t) => {
  const h = harness(t);
  h.loop.start();
  await h.tick(DEBOUNCE);
  await h.end();
  await h.tick(RESYNC - DEBOUNCE);
  assert.equal(h.resyncs(), 2);
  await h.tick(DEBOUNCE);
  assert.equal(h.started.length, 2);
});

test('stop: no sync starts after it; it resolves with the outcome of the running one', async (t) => {
  const h = harness(t, ['conflicted']);
  h.loop.start();
  await h.tick(DEBOUNCE);
  h.loop.trigger();
  const stopped = h.loop.stop();
  await h.end();
  assert.equal(await stopped, 'conflicted');
  await h.tick(RESYNC * 2);
  assert.equal(h.started.length, 1);
});
