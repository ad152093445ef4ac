// A refusal naming its field: `build` throws a ConfigError one of whose problems is
// "<field>: ..." and says what is allowed (holds `allowed`), as synth and start-up refuse bad input.
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';

export function assertRefused(build: () => unknown, field: string, allowed: string): void {
  assert.throws(build, (error: unknown) => {
    assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
    const line = error.problems.find((p) => p.startsWith(`${field}: `));
    assert.ok(line, `a problem naming ${field}, got:\n${error.message}`);
    assert.ok(line.includes(allowed), `"${line}" says what is allowed ("${allowed}")`);
    return true;
  });
}
