// Side by side with the real external-dns v0.22 on Traefik's routes (traefik-proxy): the same
// IngressRoutes, IngressRouteTCPs and IngressRouteUDPs (traefik.io from Traefik v3.7's CRDs, and
// Traefik v2.11's traefik.containo.us with --traefik-enable-legacy) in one kube-apiserver; every
// name asked every type of both (test/support/side-by-side.ts). The differences are those of
// docs/sources.md ("Traefik"): double-quoted rules and mixed-case hosts, and the etcdns extension
// for external-dns's #6457 (--traefik-service, given to etcdns only).
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { createTraefikRoute, installEdgeCrds } from '../../../../support/crds.ts';
import { createLoadBalancerService } from '../../../../support/kube-objects.ts';
import { stopAll } from '../../../../support/process.ts';
import {
  assertSameNames,
  compareAnswers,
  startSideBySide,
  type SideBySide,
  type SideBySideSuite,
} from '../../../../support/side-by-side.ts';

const H = 'external-dns.kubernetes.io/';
const TARGET = { [`${H}target`]: '192.0.2.10' };

const suite: SideBySideSuite = {
  sources: ['traefik-proxy'],
  args: ['--traefik-enable-legacy'],
  etcdnsArgs: ['--traefik-service', 'traefik/traefik'],
  zones: ['example.org'],
  async setup(kube) {
    await installEdgeCrds(kube.admin, 'traefik', 'traefik-legacy');
    const core = kube.admin.makeApiClient(k8s.CoreV1Api);
    for (const name of ['apps', 'traefik']) await core.createNamespace({ body: { metadata: { name } } });
    await createLoadBalancerService(kube.admin, {
      name: 'traefik',
      namespace: 'traefik',
      addresses: [{ ip: '192.0.2.80' }],
    });
    const route = (r: Omit<Parameters<typeof createTraefikRoute>[1], 'namespace'>) =>
      createTraefikRoute(kube.admin, { namespace: 'apps', ...r });
    await route({ kind: 'IngressRoute', name: 'web', matches: ['Host(`web.example.org`)'], annotations: TARGET });
    await route({
      kind: 'IngressRoute',
      name: 'multi',
      matches: [
        '(Host(`a.example.org`) || Host(`b.example.org`)) && PathPrefix(`/api`)',
        'Host(`c.example.org`, `d.example.org`)',
      ],
      annotations: TARGET,
    });
    await route({
      kind: 'IngressRoute',
      name: 'ann',
      matches: ['Host(`ann.example.org`)'],
      annotations: { ...TARGET, [`${H}hostname`]: 'extra.example.org', [`${H}ttl`]: '60' },
    });
    await route({
      kind: 'IngressRoute',
      name: 'cname',
      matches: ['HostHeader(`cname.example.org`)'],
      annotations: { [`${H}target`]: 'lb.example.net' },
    });
    await route({ kind: 'IngressRouteTCP', name: 'db', matches: ['HostSNI(`db.example.org`)'], annotations: TARGET });
    await route({ kind: 'IngressRouteTCP', name: 'any', matches: ['HostSNI(`*`)'], annotations: TARGET });
    await route({
      kind: 'IngressRouteUDP',
      name: 'game',
      annotations: { ...TARGET, [`${H}hostname`]: 'game.example.org' },
    });
    await route({
      kind: 'IngressRoute',
      name: 'old',
      matches: ['Host(`old.example.org`)'],
      annotations: TARGET,
      legacy: true,
    });
    await route({
      kind: 'IngressRoute',
      name: 'theirs',
      matches: ['Host(`theirs.example.org`)'],
      annotations: { ...TARGET, [`${H}controller`]: 'someone-else' },
    });
    await route({
      kind: 'IngressRoute',
      name: 'regexp',
      matches: ['HostRegexp(`^.+\\.example\\.org$`)'],
      annotations: TARGET,
    });
    // Differences: external-dns reads no double-quoted host, keeps the case of a host in its key,
    // and publishes nothing without a target annotation (etcdns: the --traefik-service addresses).
    await route({ kind: 'IngressRoute', name: 'dq', matches: ['Host("dq.example.org")'], annotations: TARGET });
    await route({ kind: 'IngressRoute', name: 'caps', matches: ['Host(`Caps.Example.org`)'], annotations: TARGET });
    await route({ kind: 'IngressRoute', name: 'notarget', matches: ['Host(`notarget.example.org`)'] });
  },
  names: {
    'web.example.org.': ['192.0.2.10'],
    'a.example.org.': ['192.0.2.10'],
    'b.example.org.': ['192.0.2.10'],
    'c.example.org.': ['192.0.2.10'],
    'd.example.org.': ['192.0.2.10'],
    'ann.example.org.': ['192.0.2.10'],
    'extra.example.org.': ['192.0.2.10'],
    'cname.example.org.': ['lb.example.net.'],
    'db.example.org.': ['192.0.2.10'],
    'game.example.org.': ['192.0.2.10'],
    'old.example.org.': ['192.0.2.10'],
  },
  absent: ['theirs.example.org.'],
  differences: {
    'dq.example.org.': 'double-quoted Host: external-dns reads backquotes only',
    'caps.example.org.': 'mixed-case host: external-dns keeps the case in the key, no lookup finds it',
    'notarget.example.org.': 'etcdns extension (#6457): --traefik-service gives routes without a target its addresses',
  },
};

let run: SideBySide;
before(async () => {
  run = await startSideBySide(suite);
});
after(async () => {
  console.log(`# figures: ${run?.figures.join('; ')}`);
  await stopAll();
});

test('traefik-proxy: every name external-dns publishes, etcdns publishes with the same targets; the same names are left out', async () => {
  await assertSameNames(run, suite);
});

test('traefik-proxy: every name, every type: the same answers as external-dns except the listed differences', async () => {
  run.figures.push(`traefik-proxy: ${await compareAnswers(run, suite)}`);
});
