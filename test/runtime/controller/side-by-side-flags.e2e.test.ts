// Side by side with the real external-dns v0.22 on flags a team carries over: a custom
// --annotation-prefix (only that prefix is read: the GA and alpha spellings publish nothing) and
// --default-targets (a DNSEndpoint endpoint without targets takes them; one with targets keeps its
// own), on the same Services and DNSEndpoints in one kube-apiserver; every name asked every type of
// both (test/support/side-by-side.ts).
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { createDnsEndpoint, installDnsEndpointCrd } from '../../support/gateway-api.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { stopAll } from '../../support/process.ts';
import {
  assertSameNames,
  compareAnswers,
  startSideBySide,
  type SideBySide,
  type SideBySideSuite,
} from '../../support/side-by-side.ts';

const CUSTOM = 'dns.example.com/';
const GA = 'external-dns.kubernetes.io/';
const ALPHA = 'external-dns.alpha.kubernetes.io/';

const suite: SideBySideSuite = {
  sources: ['service', 'crd'],
  args: [`--annotation-prefix=${CUSTOM}`, '--default-targets=192.0.2.99'],
  zones: ['example.org'],
  async setup(kube) {
    await installDnsEndpointCrd(kube.admin);
    const core = kube.admin.makeApiClient(k8s.CoreV1Api);
    for (const name of ['apps', 'dns']) await core.createNamespace({ body: { metadata: { name } } });
    const service = (name: string, annotations: Record<string, string>) =>
      createLoadBalancerService(kube.admin, { name, namespace: 'apps', annotations, addresses: [{ ip: '192.0.2.1' }] });
    await service('custom', { [`${CUSTOM}hostname`]: 'custom.example.org', [`${CUSTOM}ttl`]: '60' });
    await service('ga', { [`${GA}hostname`]: 'ga.example.org' });
    await service('alpha', { [`${ALPHA}hostname`]: 'alpha.example.org' });
    await service('both', {
      [`${CUSTOM}hostname`]: 'both-custom.example.org',
      [`${GA}hostname`]: 'both-ga.example.org',
    });
    await service('target', { [`${CUSTOM}hostname`]: 'target.example.org', [`${CUSTOM}target`]: '192.0.2.7' });
    await service('ga-target', { [`${CUSTOM}hostname`]: 'ga-target.example.org', [`${GA}target`]: '192.0.2.8' });
    await createDnsEndpoint(kube.admin, {
      name: 'static',
      namespace: 'dns',
      endpoints: [
        { dnsName: 'empty.example.org', recordType: 'A', targets: [] },
        { dnsName: 'own.example.org', recordType: 'A', targets: ['192.0.2.50'] },
      ],
    });
  },
  names: {
    'custom.example.org.': ['192.0.2.1'],
    'both-custom.example.org.': ['192.0.2.1'],
    'target.example.org.': ['192.0.2.7'],
    'ga-target.example.org.': ['192.0.2.1'],
    'empty.example.org.': ['192.0.2.99'],
    'own.example.org.': ['192.0.2.50'],
  },
  absent: ['ga.example.org.', 'alpha.example.org.', 'both-ga.example.org.'],
};

let run: SideBySide;
before(async () => {
  run = await startSideBySide(suite);
});
after(async () => {
  console.log(`# figures: ${run?.figures.join('; ')}`);
  await stopAll();
});

test('carried flags: every name external-dns publishes, etcdns publishes with the same targets; the same names are left out', async () => {
  await assertSameNames(run, suite);
});

test('carried flags: every name, every type: the same answers as external-dns', async () => {
  run.figures.push(`--annotation-prefix, --default-targets: ${await compareAnswers(run, suite)}`);
});
