// The PTR and SRV props of the controller (sources.reverseZones, srv, srvMaxPerService): synth puts
// them in the controller's config, which the controller's own loader accepts with the same meaning;
// a mistake fails synth naming the field (one test per row).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '../../../src/config/config-error.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const dir = mkdtempSync(join(tmpdir(), 'etcdns-ptr-srv-props-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const base: DnsStackProps = { zones: [{ name: 'example.org' }] };
const podEnv = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'dns' };

test('reverseZones, srv and srvMaxPerService reach the controller as loaded config', () => {
  const props: DnsStackProps = {
    ...base,
    sources: {
      reverseZones: [{ network: '10.9.176.0/24' }, { network: '2001:db8::/32', views: ['internal'] }],
      srv: true,
      srvMaxPerService: 16,
    },
  };
  const configMap = (synthObjects(props) as Json[]).find(
    (o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-controller',
  )!;
  const file = join(dir, 'controller.json');
  writeFileSync(file, configMap.data['config.json']);
  const { config } = parseControllerOptions(['--config', file], podEnv);
  assert.deepEqual(config.reverseZones, [
    { network: '10.9.176.0/24' },
    { network: '2001:db8::/32', views: ['internal'] },
  ]);
  assert.equal(config.srv, true);
  assert.equal(config.srvMaxPerService, 16);
});

const rejected: [string, NonNullable<DnsStackProps['sources']>, string, string][] = [
  [
    'IPv4 reverse zone off an octet',
    { reverseZones: [{ network: '10.9.176.0/25' }] },
    'sources.reverseZones[0].network',
    'an octet',
  ],
  [
    'IPv6 reverse zone off a nibble',
    { reverseZones: [{ network: '2001:db8::/30' }] },
    'sources.reverseZones[0].network',
    'a nibble',
  ],
  ['reverse zone not a CIDR', { reverseZones: [{ network: 'example.org' }] }, 'sources.reverseZones[0].network', ''],
  [
    'reverse zone naming a view the stack lacks',
    { reverseZones: [{ network: '10.9.176.0/24', views: ['external'] }] },
    'sources.reverseZones[0].views[0]',
    '"external" is not a view of the stack (internal)',
  ],
  ['srvMaxPerService zero', { srvMaxPerService: 0 }, 'sources.srvMaxPerService', ''],
];
for (const [what, sources, field, allowed] of rejected) {
  test(`rejected: ${what}`, () => {
    assert.throws(
      () => synthObjects({ ...base, sources }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `a ConfigError, got ${String(error)}`);
        const line = error.problems.find((p) => p.startsWith(`${field}: `));
        assert.ok(line, `a problem naming ${field}, got:\n${error.message}`);
        assert.ok(line.includes(allowed), `"${line}" says what is allowed ("${allowed}")`);
        return true;
      },
    );
  });
}
