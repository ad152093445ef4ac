// external-dns's flags as props (sources.annotationPrefix, enableLegacyAnnotationPrefix,
// defaultTargets, forceDefaultTargets): synth puts them in the controller's config, which the
// controller's own loader reads with the same meaning; a mistake fails synth naming the field
// (one test per row).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '../../../src/config/config-error.ts';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { parseControllerOptions } from '../../../src/runtime/controller/controller-options.ts';
import { sourceOptions } from '../../../src/runtime/controller/sources/source-options.ts';

type Sources = NonNullable<DnsStackProps['sources']>;
const GA = 'external-dns.kubernetes.io/';
const ALPHA = 'external-dns.alpha.kubernetes.io/';

const dir = mkdtempSync(join(tmpdir(), 'etcdns-prefix-props-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const base: DnsStackProps = { zones: [{ name: 'example.org' }] };

function loaded(sources: Sources) {
  type ConfigMap = { kind: string; metadata: { name: string }; data: Record<string, string> };
  const objects = synthObjects({ ...base, sources }) as unknown as ConfigMap[];
  const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-controller')!;
  const file = join(dir, 'controller.json');
  writeFileSync(file, configMap.data['config.json']!);
  const env = { POD_NAME: 'etcdns-controller-7d9f-abcde', POD_NAMESPACE: 'dns' };
  return sourceOptions(parseControllerOptions(['--config', file], env).config);
}

const accepted: [string, Sources, string[]][] = [
  ['unset: both, GA first', {}, [GA, ALPHA]],
  ['the alpha prefix pinned', { annotationPrefix: ALPHA }, [ALPHA]],
  [
    'a custom prefix with legacy',
    { annotationPrefix: 'dns.example.com/', enableLegacyAnnotationPrefix: true },
    ['dns.example.com/', ALPHA],
  ],
  ['legacy off', { enableLegacyAnnotationPrefix: false }, [GA]],
];
for (const [what, sources, want] of accepted) {
  test(`annotation prefix props: ${what}`, () => assert.deepEqual(loaded(sources).annotationPrefixes, want));
}

test('default targets props reach the sources', () => {
  const { defaultTargets } = loaded({ defaultTargets: ['192.0.2.9'], forceDefaultTargets: true });
  assert.deepEqual(defaultTargets, { records: [{ type: 'A', target: '192.0.2.9' }], force: true });
});

const rejected: [string, Sources, string][] = [
  ['a host name beside an address', { defaultTargets: ['lb.example.net', '192.0.2.9'] }, 'sources.defaultTargets'],
  [
    'forceDefaultTargets not a boolean',
    { forceDefaultTargets: 1 as unknown as boolean },
    'sources.forceDefaultTargets',
  ],
  ['a prefix without "/"', { annotationPrefix: 'example.com' }, 'sources.annotationPrefix'],
  ['a prefix that is no DNS name', { annotationPrefix: 'Bad Prefix/' }, 'sources.annotationPrefix'],
  [
    'enableLegacyAnnotationPrefix not a boolean',
    { enableLegacyAnnotationPrefix: 'yes' as unknown as boolean },
    'sources.enableLegacyAnnotationPrefix',
  ],
];
for (const [what, sources, field] of rejected) {
  test(`annotation prefix props rejected: ${what}`, () => {
    assert.throws(
      () => synthObjects({ ...base, sources }),
      (error: unknown) => error instanceof ConfigError && error.problems.some((p) => p.startsWith(`${field}: `)),
    );
  });
}
