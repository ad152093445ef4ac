// A DNS server serving an external view is authoritative only: forwarding is refused at start-up,
// whichever way it is configured, with the field and where it came from.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadServerSettings } from '../../../src/runtime/dns-server/server-settings.ts';
import { tempDir } from '../../support/temp-dir.ts';

const dir = tempDir('server-exposure');
const BASE = ['--etcd', 'http://127.0.0.1:2379', '--zone', 'example.org', '--prefix', '/skydns-external'];
const FORWARD = ['--forward-upstream', '192.0.2.53', '--forward-client-cidr', '10.0.0.0/8'];

test('exposure: external refuses forwarding from flags, environment or file; internal keeps it', () => {
  const file = join(dir, 'external.json');
  writeFileSync(
    file,
    JSON.stringify({ exposure: 'external', forward: { upstreams: ['192.0.2.53'], clientCidrs: ['10.0.0.0/8'] } }),
  );
  const refused: [string[], Record<string, string>, RegExp][] = [
    [
      [...BASE, '--exposure', 'external', ...FORWARD],
      {},
      /forward\.upstreams \(--forward-upstream\): is not allowed with exposure "external"/,
    ],
    [
      [...BASE, ...FORWARD],
      { ETCDNS_EXPOSURE: 'external' },
      /forward\.upstreams \(--forward-upstream\): is not allowed/,
    ],
    [
      [...BASE, '--config', file],
      {},
      /forward\.upstreams \(file .*external\.json\): is not allowed with exposure "external": an external view answers authoritatively only/,
    ],
    [
      [...BASE, '--exposure', 'public'],
      {},
      /exposure \(--exposure\): must be one of "internal", "external" \(got "public"\)/,
    ],
  ];
  for (const [args, env, want] of refused) assert.throws(() => loadServerSettings(args, env), want, args.join(' '));

  const external = loadServerSettings([...BASE, '--exposure', 'external'], {}).config;
  assert.equal(external.exposure, 'external');
  assert.equal(external.forward, undefined);
  const internal = loadServerSettings([...BASE, '--exposure', 'internal', ...FORWARD], {}).config;
  assert.deepEqual(internal.forward, { upstreams: [{ host: '192.0.2.53', port: 53 }], clientCidrs: ['10.0.0.0/8'] });
  assert.equal(loadServerSettings(BASE, {}).config.exposure, undefined);
});
