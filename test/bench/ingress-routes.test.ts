// The benchmark's IngressRoutes: the controller's own Traefik rule reader finds the host each is
// made with, before and after a host change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostPatch, ingressRoute } from '../../bench/controller/ingress-routes.ts';
import { ruleHosts } from '../../src/runtime/controller/sources/traefik/traefik-rule.ts';

const rows = [
  { name: 'route-0', host: 'route-0.bench.example.org' },
  { name: 'probe', host: 'probe-17.bench.example.org' },
];

for (const row of rows) {
  test(`${row.name}: its rule matches exactly ${row.host}`, () => {
    const route = ingressRoute(row.name, row.host, {});
    assert.equal(route.metadata.name, row.name);
    assert.deepEqual(
      route.spec.routes.flatMap((r) => ruleHosts(r.match)),
      [row.host],
    );
  });
  test(`${row.name}: the host patch replaces the rule's host with ${row.host}`, () => {
    const patched = hostPatch(row.host);
    assert.deepEqual(
      patched.spec.routes.flatMap((r) => ruleHosts(r.match)),
      [row.host],
    );
    assert.deepEqual(
      patched.spec.routes[0]!.services,
      ingressRoute(row.name, 'other.example', {}).spec.routes[0]!.services,
    );
  });
}

test('annotations are kept as given', () => {
  const annotations = { 'external-dns.kubernetes.io/target': '10.0.0.1' };
  assert.deepEqual(ingressRoute('a', 'a.example', annotations).metadata.annotations, annotations);
});
