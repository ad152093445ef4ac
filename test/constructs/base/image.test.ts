// Image references: the container-spec form, and the rules for pinning (table).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { DEFAULT_IMAGES, imageProblems, imageReference, type ImageRef } from '../../../src/constructs/base/image.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../../src/environments/index.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;

test('imageReference: tag, or tag and digest', () => {
  const rows: [ImageRef, string][] = [
    [{ repository: 'registry.k8s.io/etcd', tag: '3.5.21-0' }, 'registry.k8s.io/etcd:3.5.21-0'],
    [{ repository: 'localhost:5000/etcdns', tag: '0.1.0', digest }, `localhost:5000/etcdns:0.1.0@${digest}`],
  ];
  for (const [image, expected] of rows) assert.equal(imageReference(image), expected);
});

test('imageProblems: accepted and rejected references', () => {
  const rows: [ImageRef, string[]][] = [
    [{ repository: 'quay.io/coreos/etcd', tag: 'v3.5.21' }, []],
    [{ repository: 'ghcr.io/etcdns/etcdns', tag: '0.1.0', digest }, []],
    [{ repository: 'ghcr.io/etcdns/etcdns', tag: 'latest' }, ['img.tag: must be a fixed version tag, not "latest"']],
    [{ repository: 'ghcr.io/etcdns/etcdns', tag: '' }, ['img.tag: must be 1-128 characters']],
    [{ repository: 'ghcr.io/etcdns/etcdns', tag: '1', digest: 'md5:00' }, ['img.digest: must be "sha256:"']],
    [{ repository: 'Docker.io/Library/etcd', tag: '1' }, ['img.repository: must be a lower-case']],
    [{ repository: 'etcd:3.5', tag: '1' }, ['img.repository: must be a lower-case']],
  ];
  for (const [image, expected] of rows) {
    const problems = imageProblems(image, 'img');
    assert.equal(problems.length, expected.length, `${JSON.stringify(image)} -> ${JSON.stringify(problems)}`);
    expected.forEach((start, i) => assert.ok(problems[i]!.startsWith(start), problems[i]));
  }
});

test('the default images are pinned, valid, and not Bitnami', () => {
  for (const [name, image] of Object.entries(DEFAULT_IMAGES)) {
    assert.deepEqual(imageProblems(image, name), []);
    assert.doesNotMatch(image.repository, /bitnami/);
  }
  assert.match(DEFAULT_IMAGES.etcd.repository, /^(registry\.k8s\.io\/etcd|quay\.io\/coreos\/etcd)$/);
});

// Pinned by digest through the prop, every container of the component runs "repo:tag@sha256:…":
// [what, props, pod, container names]
const PINNED: [string, DnsStackProps, string, string[]][] = [
  ['prod: etcd', ENVIRONMENTS.prod!, 'StatefulSet/etcdns-etcd', ['etcd']],
  [
    'the etcdns image of the servers, also in etcd-member (one setting, one image)',
    {
      zones: [{ name: 'example.org' }],
      server: { image: { repository: 'registry.example.org/etcdns', tag: '0.1.0', digest } },
    },
    'StatefulSet/etcdns-etcd',
    ['etcd-member', 'etcd-member-leave'],
  ],
  [
    'the controller',
    {
      zones: [{ name: 'example.org' }],
      controller: { image: { repository: 'registry.example.org/etcdns', tag: '0.1.0', digest } },
    },
    'Deployment/etcdns-controller',
    ['controller'],
  ],
];
for (const [what, props, podId, names] of PINNED)
  test(`pinned by digest: ${what}`, () => {
    const pod = (synthObjects(props) as Json[]).find((o) => `${o.kind}/${o.metadata.name}` === podId)!.spec.template
      .spec;
    for (const name of names) {
      const c = [...(pod.initContainers ?? []), ...pod.containers].find((x: Json) => x.name === name);
      assert.match(c.image, /^[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/, `${podId} ${name}`);
    }
  });
