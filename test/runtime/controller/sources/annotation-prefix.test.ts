// --annotation-prefix and --enable-legacy-annotation-prefix, one test per row: which prefixes are
// read and which wins. With neither flag etcdns reads both prefixes, the GA one winning; given
// --annotation-prefix it reads what external-dns v0.22 reads (that prefix alone), and v0.23's
// legacy flag adds the alpha prefix, the configured one winning (external-dns PR #6703).
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import {
  annotationPrefixes,
  readAnnotation,
  useAnnotationPrefixes,
  type AnnotationPrefixSettings,
} from '../../../../src/runtime/controller/sources/annotations.ts';
import { parseControllerOptions } from '../../../../src/runtime/controller/controller-options.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';

const GA = 'external-dns.kubernetes.io/';
const ALPHA = 'external-dns.alpha.kubernetes.io/';
const CUSTOM = 'dns.example.com/';

const rows: {
  name: string;
  settings: AnnotationPrefixSettings;
  annotations: Record<string, string>;
  /** The hostname read, or undefined when none is. */
  want: string | undefined;
}[] = [
  { name: 'default: the GA prefix', settings: {}, annotations: { [`${GA}hostname`]: 'ga' }, want: 'ga' },
  { name: 'default: the alpha prefix', settings: {}, annotations: { [`${ALPHA}hostname`]: 'alpha' }, want: 'alpha' },
  {
    name: 'default: both present, GA wins',
    settings: {},
    annotations: { [`${ALPHA}hostname`]: 'alpha', [`${GA}hostname`]: 'ga' },
    want: 'ga',
  },
  {
    name: 'default: a custom prefix is not read',
    settings: {},
    annotations: { [`${CUSTOM}hostname`]: 'custom' },
    want: undefined,
  },
  {
    name: 'custom prefix: read',
    settings: { annotationPrefix: CUSTOM },
    annotations: { [`${CUSTOM}hostname`]: 'custom' },
    want: 'custom',
  },
  {
    name: 'custom prefix: the GA prefix is not read (external-dns v0.22)',
    settings: { annotationPrefix: CUSTOM },
    annotations: { [`${GA}hostname`]: 'ga' },
    want: undefined,
  },
  {
    name: 'custom prefix, legacy off: the alpha prefix is not read',
    settings: { annotationPrefix: CUSTOM },
    annotations: { [`${ALPHA}hostname`]: 'alpha' },
    want: undefined,
  },
  {
    name: 'custom prefix, legacy on: the alpha prefix is read',
    settings: { annotationPrefix: CUSTOM, enableLegacyAnnotationPrefix: true },
    annotations: { [`${ALPHA}hostname`]: 'alpha' },
    want: 'alpha',
  },
  {
    name: 'custom prefix, legacy on: both present, the custom one wins',
    settings: { annotationPrefix: CUSTOM, enableLegacyAnnotationPrefix: true },
    annotations: { [`${ALPHA}hostname`]: 'alpha', [`${CUSTOM}hostname`]: 'custom' },
    want: 'custom',
  },
  {
    name: 'alpha pinned (--annotation-prefix=external-dns.alpha.kubernetes.io/): alpha read',
    settings: { annotationPrefix: ALPHA },
    annotations: { [`${ALPHA}hostname`]: 'alpha' },
    want: 'alpha',
  },
  {
    name: 'alpha pinned: the GA prefix is not read',
    settings: { annotationPrefix: ALPHA },
    annotations: { [`${GA}hostname`]: 'ga', [`${ALPHA}hostname`]: 'alpha' },
    want: 'alpha',
  },
  {
    name: 'GA given, legacy off: the alpha prefix is not read (external-dns v0.22 default)',
    settings: { annotationPrefix: GA },
    annotations: { [`${ALPHA}hostname`]: 'alpha' },
    want: undefined,
  },
  {
    name: 'no prefix given, legacy off: only the GA prefix',
    settings: { enableLegacyAnnotationPrefix: false },
    annotations: { [`${ALPHA}hostname`]: 'alpha' },
    want: undefined,
  },
  {
    name: 'GA given, legacy on: both present, GA wins',
    settings: { annotationPrefix: GA, enableLegacyAnnotationPrefix: true },
    annotations: { [`${ALPHA}hostname`]: 'alpha', [`${GA}hostname`]: 'ga' },
    want: 'ga',
  },
];

for (const row of rows) {
  test(`annotation prefix: ${row.name}`, () => {
    const got = readAnnotation(row.annotations, 'hostname', annotationPrefixes(row.settings));
    assert.equal(got?.value, row.want);
  });
}

afterEach(() => useAnnotationPrefixes(annotationPrefixes({})));

// The same choice reaches every reader: the sources read the prefixes the controller set.
const pipelineRows: { name: string; settings: AnnotationPrefixSettings; want: string[] }[] = [
  { name: 'default', settings: {}, want: ['ga.example.org.'] },
  { name: 'custom prefix', settings: { annotationPrefix: CUSTOM }, want: ['custom.example.org.'] },
  {
    name: 'custom prefix with legacy',
    settings: { annotationPrefix: CUSTOM, enableLegacyAnnotationPrefix: true },
    want: ['custom.example.org.'],
  },
  { name: 'alpha pinned', settings: { annotationPrefix: ALPHA }, want: ['alpha.example.org.'] },
];

for (const row of pipelineRows) {
  test(`annotation prefix through the service source: ${row.name}`, () => {
    const options = sourceOptions({ sources: ['service'], ...row.settings });
    useAnnotationPrefixes(options.annotationPrefixes);
    const annotations = {
      [`${GA}hostname`]: 'ga.example.org',
      [`${ALPHA}hostname`]: 'alpha.example.org',
      [`${CUSTOM}hostname`]: 'custom.example.org',
    };
    const result = desiredRecords(
      {
        services: [
          {
            metadata: { name: 's', namespace: 'apps', uid: 'u', annotations },
            spec: { type: 'LoadBalancer', clusterIP: '10.0.0.5' },
            status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
          },
        ],
      },
      options,
    );
    assert.deepEqual([...new Set(result.records.map((r) => r.name))].sort(), row.want);
  });
}

// The flags as a team writes them, and a bad prefix refused at start-up naming the flag.
const flagRows: { name: string; args: string[]; want: string[] | RegExp }[] = [
  { name: 'neither flag', args: [], want: [GA, ALPHA] },
  { name: 'the alpha prefix pinned', args: [`--annotation-prefix=${ALPHA}`], want: [ALPHA] },
  {
    name: 'a custom prefix with legacy',
    args: [`--annotation-prefix=${CUSTOM}`, '--enable-legacy-annotation-prefix'],
    want: [CUSTOM, ALPHA],
  },
  { name: 'legacy off', args: ['--enable-legacy-annotation-prefix=false'], want: [GA] },
  {
    name: 'a prefix without "/"',
    args: ['--annotation-prefix=example.com'],
    want: /annotationPrefix \(--annotation-prefix\): must be an annotation prefix/,
  },
  {
    name: 'an empty prefix',
    args: ['--annotation-prefix='],
    want: /annotationPrefix \(--annotation-prefix\): must be an annotation prefix/,
  },
];

for (const row of flagRows) {
  test(`annotation prefix flags: ${row.name}`, () => {
    const parse = () =>
      sourceOptions(
        parseControllerOptions(['--etcd', 'http://127.0.0.1:2379', '--owner-id=me', ...row.args], {}).config,
      ).annotationPrefixes;
    if (row.want instanceof RegExp) assert.throws(parse, row.want);
    else assert.deepEqual(parse(), row.want);
  });
}

test('annotation prefix: a template name reaches the service source under the custom prefix', () => {
  const options = sourceOptions({
    sources: ['service'],
    annotationPrefix: CUSTOM,
    fqdnTemplate: ['{{ .Name }}.example.org'],
  });
  useAnnotationPrefixes(options.annotationPrefixes);
  const result = desiredRecords(
    {
      services: [
        {
          metadata: { name: 'web', namespace: 'apps', uid: 'u' },
          spec: { type: 'LoadBalancer', clusterIP: '10.0.0.5' },
          status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
        },
      ],
    },
    options,
  );
  assert.deepEqual(
    result.records.map((r) => `${r.name} ${r.target}`),
    ['web.example.org. 192.0.2.1'],
  );
});
