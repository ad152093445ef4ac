// etcdns deployed as its users deploy it: a real Flux (source-controller and kustomize-controller
// v1.9.6, test/support/flux.ts) reconciles the repository `etcdns init` writes, served by git's
// own http-backend on loopback (test/support/git-server.ts), into the single-node cluster of
// test/support/cluster.ts. The repository is the scaffold with --gitops flux --env dev, its
// gitops/flux/ applied as written (init's --repo-url set the Git URL), and one edit a user of an
// air-gapped cluster makes: the environment names the images the node has. Then, on one cluster
// and one Flux: the first sync with `wait: true`; an environment change, an upgrade to a second
// etcdns release (packed here from a commit that changes every pod template and adds a prop) and
// its rollback (a git revert), each under a steady checked DNS load; a hand edit reverted; an
// object removed from dist/ pruned; the Kustomization deleted with the Namespace, etcd's claim and
// the records kept.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from '../support/cluster.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { appliedActions, FLUX_NAMESPACE, startFlux, waitKustomizationReady, type Flux } from '../support/flux.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { createLoadBalancerService } from '../support/kube-objects.ts';
import { waitFor } from '../support/process.ts';
import { describeLoad, startDnsLoad, type DnsLoadResult } from './dns-load.ts';
import {
  ciDistCheck as ciCheck,
  deployment as readDeployment,
  etcdRecords as readRecords,
  nodeLossToleration,
  scaffoldUserRepo,
  WEB,
  webWrong,
  type UserRepo,
} from './gitops-repo.ts';
import { packRelease, packReleases, type Releases } from './release-tarballs.ts';
import {
  component,
  createEtcdVolumes,
  digAt,
  dnsService,
  HOSTNAME,
  NAMESPACE,
  pods,
  SERVER,
  soaAnswered,
  timeUntil,
  waitPodsReady,
  type DnsService,
} from './stack-support.ts';
import { LONG_SCENARIOS, diagnosed, startSuiteCluster, stopSuiteCluster } from './cluster-suite.ts';

const KUSTOMIZATION = 'etcdns-dev';
const SOURCE = 'dns-gitops';

let cluster: Cluster;
let images: ClusterImages;
let flux: Flux;
let git: GitServer;
let releases: Releases | undefined;
let user: UserRepo;
let repo = '';
let dns: DnsService;
const figures: string[] = [];

const inRepo = (cmd: string, args: string[]) => user.run(cmd, args);
const edit = (file: string, from: string, to: string) => user.edit(file, from, to);
const ciDistCheck = () => ciCheck(user);
const etcdRecords = () => readRecords(cluster);
const deployment = (name: string) => readDeployment(cluster, name);

/** Commits everything and pushes it (see push); returns the commit. */
function commitAndPush(message: string, reconcile = true): string {
  inRepo('git', ['add', '-A']);
  inRepo('git', ['commit', '--quiet', '-m', message]);
  return push(reconcile);
}

/** Pushes to the Git server and asks Flux to fetch now; returns the commit. */
function push(reconcile = true): string {
  const commit = user.push();
  // What `flux reconcile source git` (or a webhook Receiver) does; the source's interval is 1 m.
  if (reconcile) flux.requestReconcile('GitRepository', SOURCE);
  return commit;
}

/** The Kustomization Ready at `commit` (its health checks passed), and no pod left terminating. */
async function applied(commit: string, timeoutMs = 300_000): Promise<number> {
  const t0 = performance.now();
  await diagnosed(cluster, () => waitKustomizationReady(flux, KUSTOMIZATION, commit, timeoutMs));
  const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
  await waitFor(
    'no terminating pod',
    async () => {
      const list = await core.listNamespacedPod({ namespace: NAMESPACE });
      return list.items.every((p) => !p.metadata?.deletionTimestamp) ? true : undefined;
    },
    120_000,
    250,
  );
  return Math.round(performance.now() - t0);
}

const webLoad = () => startDnsLoad({ server: dns.clusterIp, name: WEB.name, type: 'A', wrong: webWrong });

describe('Flux reconciles the repository etcdns init writes', { timeout: 2_400_000 }, () => {
  before(async () => {
    ({ cluster, images } = await startSuiteCluster(figures));
    // N+1 only for the upgrade, a long scenario here (Argo CD's suite runs its own every time).
    const tPack = performance.now();
    releases = LONG_SCENARIOS ? packReleases() : undefined;
    const current = releases?.current ?? packRelease();
    figures.push(`pack ${releases ? 'N and N+1' : 'N'} ${Math.round(performance.now() - tPack)} ms`);
    const t0 = performance.now();
    flux = await startFlux(cluster);
    figures.push(`Flux CRDs + controllers ready ${Math.round(performance.now() - t0)} ms`);
    git = await startGitServer();
    user = scaffoldUserRepo({
      name: SOURCE,
      tarball: current.tarball,
      repoUrl: git.url(SOURCE),
      bare: git.bareRepo(SOURCE),
      gitops: 'flux',
      images,
      figures,
    });
    repo = user.dir;
  });

  after(() => stopSuiteCluster(cluster, figures, () => flux?.stop()));

  test('(1) init -> commit -> gitops/flux/ applied: Ready with wait: true; a Service created afterwards answers', async () => {
    await createEtcdVolumes(cluster, { statefulSet: 'etcdns-etcd', ordinals: [0], size: '1Gi' });
    const t0 = performance.now();
    // The GitRepository does not exist yet: it fetches when it is created.
    const commit = commitAndPush('DNS for dev: etcdns init, images of this cluster', false);
    const committedAt = Date.now();
    // As the repository's gitops/flux/repository.yaml says: kubectl apply -f gitops/flux/.
    cluster.kubectl(['apply', '-f', join(repo, 'gitops', 'flux')]);
    let firstAnswerMs = 0;
    const answered = (async () => {
      await waitFor(
        'the DNS Service',
        async () => {
          dns = await dnsService(cluster.admin, SERVER);
          return dns.clusterIp ? true : undefined;
        },
        300_000,
        250,
      );
      await timeUntil(
        'the first SOA answer through the DNS Service',
        () => soaAnswered(dns.clusterIp, 53),
        300_000,
        100,
      );
      firstAnswerMs = Math.round(performance.now() - t0);
    })();
    await applied(commit);
    const readyMs = Math.round(performance.now() - t0);
    await answered;
    // Where the time goes: when kustomize-controller had applied the set (its log's timestamp).
    const appliedLine = flux.kustomizeController
      .logs()
      .split('\n')
      .find((l) => l.includes('server-side apply completed'));
    const appliedAt = Date.parse(appliedLine?.split('\t')[0] ?? '');
    figures.push(`first commit -> Flux applied the objects ${appliedAt - committedAt} ms`);
    figures.push(
      `first commit -> Kustomization Ready ${readyMs} ms`,
      `first commit -> first DNS answer ${firstAnswerMs} ms`,
    );

    // Ready although the DNS LoadBalancer Service has no address: no load-balancer controller here.
    const svc = await cluster.admin
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedService({ name: SERVER, namespace: NAMESPACE });
    assert.equal(svc.spec?.type, 'LoadBalancer');
    assert.deepEqual(svc.status?.loadBalancer?.ingress ?? [], [], 'no load-balancer address was assigned');
    for (const p of await pods(cluster.admin)) assert.equal(p.restarts, 0, `${p.name} restarted`);

    // Nothing another controller sets fights dist/: a reconcile of the same revision changes nothing.
    const again = appliedActions(await flux.reconcileNow('Kustomization', KUSTOMIZATION));
    const changed = Object.entries(again).filter(([, action]) => action !== 'unchanged');
    assert.ok(Object.keys(again).length >= 15, `the reconcile applied every object: ${JSON.stringify(again)}`);
    assert.deepEqual(changed, [], 'objects a second reconcile of the same revision changed');
    figures.push(`a second reconcile of the first revision: ${Object.keys(again).length} objects, all unchanged`);

    const t1 = performance.now();
    await createLoadBalancerService(cluster.admin, {
      name: 'web',
      annotations: { [HOSTNAME]: WEB.name },
      addresses: [{ ip: WEB.ip }],
    });
    await timeUntil(
      'web answered',
      async () => webWrong(await digAt(dns.clusterIp, 53, WEB.name, 'A')) === undefined,
      10_000,
    );
    figures.push(`Service create -> answer ${Math.round(performance.now() - t1)} ms`);
  });

  /** Waits until Flux applied `commit` while the checked load runs, and 3 s of the new pods after. */
  async function applyUnderLoad(commit: string): Promise<{ load: DnsLoadResult; appliedMs: number }> {
    const load = webLoad();
    const appliedMs = await applied(commit).catch(async (e: unknown) => {
      await load.stop();
      throw e;
    });
    return { load: await load.stop(3000), appliedMs };
  }

  /** Commits what `change` does to the repository and waits until Flux applied it, under load. */
  async function rollUnderLoad(
    what: string,
    change: () => void,
  ): Promise<{ load: DnsLoadResult; appliedMs: number; commit: string }> {
    change();
    const commit = commitAndPush(what);
    const { load: result, appliedMs } = await applyUnderLoad(commit);
    figures.push(`${what}: applied ${appliedMs} ms after the push; ${describeLoad(result)}`);
    return { load: result, appliedMs, commit };
  }

  test('(2) an environment change (a new zone, 2 server replicas) is applied by Flux with no failed query', async () => {
    const { load } = await rollUnderLoad('a new zone and 2 DNS servers', () => {
      edit(
        'environments/dev.ts',
        "zones: [{ name: 'dev.example.org', defaultTtl: 30 }],",
        "zones: [{ name: 'dev.example.org', defaultTtl: 30 }, { name: 'lab.example.net' }],",
      );
      edit('environments/dev.ts', 'server: { replicas: 1,', 'server: { replicas: 2,');
      inRepo('npm', ['run', 'synth']);
      // The repository's CI refuses this state: dist/ changed and is not committed yet.
      const dirty = ciDistCheck();
      assert.equal(dirty.status, 1, dirty.output);
      assert.match(dirty.output, /dist\/dev\/deployment-etcdns-server-internal\.yaml/);
      assert.match(dirty.output, /::error::dist\/ differs from what npm run synth writes/);
    });
    const clean = ciDistCheck();
    assert.equal(clean.status, 0, `committed as synthesized, CI passes: ${clean.output}`);
    await waitPodsReady(cluster.admin, component('server-internal'), 2);
    const lab = await digAt(dns.clusterIp, 53, 'lab.example.net', 'SOA');
    assert.equal(lab.status, 'NOERROR', 'the new zone answers');
    assert.deepEqual(load.failures, [], `${load.failures.length} of ${load.queries} lookups failed`);
  });

  test('(5) drift: the server Deployment scaled by hand is put back by the next reconcile', async () => {
    cluster.kubectl(['scale', '-n', NAMESPACE, `deployment/${SERVER}`, '--replicas=3']);
    assert.equal((await deployment(SERVER)).spec?.replicas, 3);
    const t0 = performance.now();
    const actions = appliedActions(await flux.reconcileNow('Kustomization', KUSTOMIZATION));
    const ms = Math.round(performance.now() - t0);
    assert.equal((await deployment(SERVER)).spec?.replicas, 2, 'replicas as dist/ says');
    assert.equal(actions[`Deployment/${NAMESPACE}/${SERVER}`], 'configured', JSON.stringify(actions));
    const others = Object.entries(actions).filter(([o, a]) => a !== 'unchanged' && !o.endsWith(`/${SERVER}`));
    assert.deepEqual(others, [], 'nothing else changed');
    figures.push(`drift (replicas 2 -> 3 by hand) reverted by the reconcile ${ms} ms after its request`);
    await waitPodsReady(cluster.admin, component('server-internal'), 2);
  });

  test(
    '(3) upgrade N -> N+1 and rollback by git revert: no failed query, the records in etcd untouched',
    {
      skip:
        !LONG_SCENARIOS &&
        "a long scenario (npm run test:cluster:long); Argo CD's suite upgrades and rolls back in every run",
    },
    async () => {
      const r = releases ?? assert.fail('N+1 is packed only for the long scenarios');
      const before = await etcdRecords();
      const uids = async () => new Set((await pods(cluster.admin)).map((p) => p.uid));
      const podsBefore = await uids();
      assert.ok(
        [...before.keys()].some((k) => k.endsWith('/web') || k.includes('/web/')),
        `web's record: ${[...before.keys()]}`,
      );
      assert.equal(nodeLossToleration((await deployment(SERVER)).spec?.template.spec), undefined);

      const up = await rollUnderLoad(`etcdns ${r.current.version} -> ${r.next.version}`, () => {
        inRepo('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `etcdns@file:${r.next.tarball}`]);
        edit('environments/dev.ts', 'server: { replicas: 2,', 'server: { replicas: 2, nodeLossToleranceSeconds: 30,');
        inRepo('npm', ['run', 'typecheck']);
        inRepo('npm', ['run', 'synth']);
      });
      const server = await deployment(SERVER);
      // (app.kubernetes.io/version names the image's tag, which the environment pins: unchanged.)
      assert.equal(nodeLossToleration(server.spec?.template.spec), 30, 'the new prop reached the server pods');
      assert.equal(nodeLossToleration((await deployment('etcdns-controller')).spec?.template.spec), 60);
      const etcdSet = await cluster.admin
        .makeApiClient(k8s.AppsV1Api)
        .readNamespacedStatefulSet({ name: 'etcdns-etcd', namespace: NAMESPACE });
      assert.equal(nodeLossToleration(etcdSet.spec?.template.spec), 60, "etcd's pod template changed too");
      assert.deepEqual(await etcdRecords(), before, 'records after the upgrade');
      const podsUpgraded = await uids();
      assert.ok(
        [...podsUpgraded].every((uid) => !podsBefore.has(uid)),
        'every pod (etcd, the DNS servers, the controller) was replaced',
      );

      inRepo('git', ['revert', '--no-edit', 'HEAD']);
      // What the revert's package-lock.json says, for the synths that follow.
      inRepo('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
      const { load: down, appliedMs: downMs } = await applyUnderLoad(push());
      figures.push(`rollback (git revert): applied ${downMs} ms after the push; ${describeLoad(down)}`);
      const reverted = await deployment(SERVER);
      assert.equal(nodeLossToleration(reverted.spec?.template.spec), undefined);
      assert.deepEqual(await etcdRecords(), before, 'records after the rollback');
      assert.ok(
        [...(await uids())].every((uid) => !podsUpgraded.has(uid)),
        'every pod was replaced again',
      );
      assert.deepEqual(
        up.load.failures,
        [],
        `upgrade: ${up.load.failures.length} of ${up.load.queries} lookups failed`,
      );
      assert.deepEqual(down.failures, [], `rollback: ${down.failures.length} of ${down.queries} lookups failed`);
    },
  );

  test('(4) prune: what leaves dist/ is deleted; deleting the Kustomization keeps the Namespace, the claim and the records', async () => {
    const networking = cluster.admin.makeApiClient(k8s.NetworkingV1Api);
    const policies = async () => (await networking.listNamespacedNetworkPolicy({ namespace: NAMESPACE })).items.length;
    assert.ok((await policies()) > 0);
    edit(
      'environments/dev.ts',
      "ownership: { ownerId: 'etcdns-dev' },",
      "ownership: { ownerId: 'etcdns-dev' },\n  networkPolicy: { enabled: false },",
    );
    inRepo('npm', ['run', 'synth']);
    const commit = commitAndPush('no NetworkPolicies');
    const pruneMs = await applied(commit);
    assert.equal(await policies(), 0, 'the NetworkPolicies that left dist/ were pruned');
    figures.push(`3 NetworkPolicies removed from dist/ -> pruned, Ready ${pruneMs} ms after the push`);

    const records = await etcdRecords();
    const core = cluster.admin.makeApiClient(k8s.CoreV1Api);
    const apps = cluster.admin.makeApiClient(k8s.AppsV1Api);
    const t0 = performance.now();
    cluster.kubectl([
      'delete',
      '-n',
      FLUX_NAMESPACE,
      `kustomization.kustomize.toolkit.fluxcd.io/${KUSTOMIZATION}`,
      '--timeout=180s',
    ]);
    // Flux's garbage collection ran: the workloads it applied are gone ...
    await waitFor(
      'the workloads deleted',
      async () => {
        const n =
          (await apps.listNamespacedDeployment({ namespace: NAMESPACE })).items.length +
          (await apps.listNamespacedStatefulSet({ namespace: NAMESPACE })).items.length;
        return n === 0 ? true : undefined;
      },
      120_000,
      250,
    );
    await waitFor(
      'the pods gone',
      async () => ((await core.listNamespacedPod({ namespace: NAMESPACE })).items.length === 0 ? true : undefined),
      180_000,
      250,
    );
    figures.push(`Kustomization deleted -> workloads and pods gone ${Math.round(performance.now() - t0)} ms`);
    // ... but not the Namespace (kustomize.toolkit.fluxcd.io/prune: disabled) nor etcd's claim.
    const ns = await core.readNamespace({ name: NAMESPACE });
    assert.equal(ns.status?.phase, 'Active');
    assert.equal(ns.metadata?.deletionTimestamp, undefined);
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: 'data-etcdns-etcd-0', namespace: NAMESPACE });
    assert.equal(claim.status?.phase, 'Bound');

    // The records are on that claim: the Kustomization applied again finds them as they were.
    const t1 = performance.now();
    cluster.kubectl(['apply', '-f', join(repo, 'gitops', 'flux', 'dev.yaml')]);
    await applied(commit);
    dns = await dnsService(cluster.admin, SERVER);
    await timeUntil(
      'web answered again',
      async () => webWrong(await digAt(dns.clusterIp, 53, WEB.name, 'A')) === undefined,
      60_000,
      100,
    );
    figures.push(`Kustomization applied again -> Ready and web answered ${Math.round(performance.now() - t1)} ms`);
    assert.deepEqual(await etcdRecords(), records, 'the records after the Kustomization was deleted and applied again');
  });
});
