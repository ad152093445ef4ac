// waitReady gives up as soon as the awaited program exits, with its output, instead of polling
// until the timeout.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startProcess, waitReady } from './process.ts';

test('waitReady fails at once when the process exits before it is ready', async () => {
  const proc = startProcess('sh', '/bin/sh', ['-c', 'echo cannot bind; exit 3']);
  const started = Date.now();
  await assert.rejects(
    waitReady(proc, 'ready', async () => false, 20_000),
    (e: Error) => {
      assert.match(e.message, /sh exited before it was ready/);
      assert.match(e.message, /cannot bind/);
      return true;
    },
  );
  assert.ok(Date.now() - started < 5_000, 'did not wait for the 20 s timeout');
});
