// The GitOps ordering that does not depend on which construct made an object (gitops.ts):
// with sync waves on, every CustomResourceDefinition of the stack goes into the first wave, before
// any custom resource of its kind whatever that one's wave; without sync waves nothing is added.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiObject, App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { orderDefinitionsFirst, SYNC_WAVE, SYNC_WAVE_ANNOTATION } from '../../../src/constructs/base/gitops.ts';

function tree() {
  const chart = new Chart(new App(), 'c', { disableResourceNameHashes: true });
  const optIn = new Construct(chart, 'opt-in');
  new ApiObject(optIn, 'crd', {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'dnsendpoints.externaldns.k8s.io' },
  });
  new ApiObject(optIn, 'endpoint', {
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    kind: 'DNSEndpoint',
    metadata: { name: 'e', annotations: { [SYNC_WAVE_ANNOTATION]: String(SYNC_WAVE.workloads) } },
  });
  return chart;
}
const waves = (chart: Chart) =>
  Object.fromEntries(
    chart
      .toJson()
      .map((o: { kind: string; metadata: { annotations?: Record<string, string> } }) => [
        o.kind,
        o.metadata.annotations?.[SYNC_WAVE_ANNOTATION],
      ]),
  );
const stack = (syncWaves: boolean) => ({ name: 'etcdns', namespace: 'etcdns', syncWaves });

test('with sync waves, a CRD anywhere in the tree goes into the first wave; other objects keep theirs', () => {
  const chart = tree();
  orderDefinitionsFirst(chart, stack(true));
  assert.deepEqual(waves(chart), { CustomResourceDefinition: '-3', DNSEndpoint: '1' });
  assert.ok(
    Object.values(SYNC_WAVE).every((w) => w >= SYNC_WAVE.definitions),
    'no wave comes before the definitions',
  );
});

test('without sync waves nothing is annotated', () => {
  const chart = tree();
  orderDefinitionsFirst(chart, stack(false));
  assert.deepEqual(waves(chart), { CustomResourceDefinition: undefined, DNSEndpoint: '1' });
});
