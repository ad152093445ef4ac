// The config loader's validation of a config file (server or controller, by the first byte):
// JSON that parses is checked by the schema. Contract: a bad file fails with a ConfigError naming
// the field, never another exception; what passes is what the components run with.
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/config/config-error.ts';
import { controllerConfigSchema } from '../../src/config/controller-config.ts';
import { parseConfig } from '../../src/config/schema-problems.ts';
import { serverConfigSchema } from '../../src/config/server-config.ts';
import type { FuzzTarget } from '../engine.ts';

export const config: FuzzTarget = {
  name: 'config',
  maxLength: 4096,
  dictionary: [
    '"zones"',
    '"name"',
    '"etcd"',
    '"endpoints"',
    '"prefix"',
    '"views"',
    '"listen"',
    '"forward"',
    '"rateLimit"',
    '"ttl"',
    '"leaderElection"',
    '"domains"',
    '"sources"',
    '"exposure"',
    '"external"',
    '"rewrite"',
    '"http://127.0.0.1:2379"',
    '"example.org"',
    '[]',
    '{}',
    'null',
    'true',
    '-1',
    '1e309',
    '"0.0.0.0:53"',
  ],
  run(data) {
    let value: unknown;
    try {
      value = JSON.parse(data.subarray(1).toString('utf8'));
    } catch {
      return; // not JSON: the loader reports the file, tested elsewhere
    }
    const schema = (data[0] ?? 0) % 2 === 0 ? serverConfigSchema : controllerConfigSchema;
    try {
      parseConfig(schema, value);
    } catch (e) {
      assert.ok(e instanceof ConfigError, `only ConfigError, got ${(e as Error)?.stack ?? String(e)}`);
      assert.ok(e.problems.length > 0 && e.problems.every((p) => typeof p === 'string' && p.length > 0));
    }
  },
};
