// etcdns deployed as Argo CD users deploy it: a real Argo CD (application-controller and
// repo-server v3.5.7 with redis, test/support/argocd.ts) syncs the repository `etcdns init` writes,
// served by git's own http-backend on loopback (test/support/git-server.ts), into the single-node
// cluster of test/support/cluster.ts. The repository is the scaffold with --gitops argocd --env
// dev; its gitops/argocd/argocd-cm.yaml (the DNSEndpoint health check) is merged into argocd-cm
// and its Application applied, both as written. Edits a user makes: the images the node has (no
// registry), and, as shared.ts's comments offer, DNSEndpoint sources with a record kept in Git,
// plus gitops.syncWaves, so a first sync has a CRD, its custom resources and the waves to order
// them. No load-balancer controller runs here: the check plays MetalLB for the DNS Service
// (assigns its status address) once it has seen Argo CD wait for it. Then, on one cluster and
// one Argo CD, each under a steady checked DNS load: the first sync (Synced and Healthy, waves in
// order, a second sync changes nothing); an environment change; an upgrade to a second etcdns
// release and its rollback (a git revert); a hand edit healed; an object removed from dist/
// pruned; the DNSEndpoint CRD left out of dist/ (kept: Argo CD does not track CRDs); the
// Application deleted as written (no resources finalizer: nothing deleted) and applied again;
// then deleted with the resources finalizer (everything it applied goes, wave by wave from the
// last, within a bound). Beside it, a second Application applies dist/staging's Certificates and
// ExternalSecret (their operators' CRDs installed; the check plays the operators' Ready).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { dump, load } from 'js-yaml';
import {
  ARGOCD_NAMESPACE,
  startArgoCd,
  unhealthy,
  untilApplication,
  waitApplication,
  type ApplicationStatus,
  type ArgoCd,
  type ResourceStatus,
} from '../support/argocd.ts';
import { objectKey, watchDeletions, type DeletionMarks } from '../support/deletion-watch.ts';
import { CERT_MANAGER_VERSION } from '../support/cert-manager.ts';
import type { Cluster } from '../support/cluster.ts';
import { crdsIn, EXTERNAL_SECRETS_VERSION, installCrds } from '../support/crds.ts';
import { tempDir } from '../support/temp-dir.ts';
import { repoRoot } from '../support/tools.ts';
import { argoHealthConfigMap } from '../../src/scaffold/argocd-health.ts';
import type { ClusterImages } from '../support/cluster-images.ts';
import { startGitServer, type GitServer } from '../support/git-server.ts';
import { assignLoadBalancerAddress, createLoadBalancerService } from '../support/kube-objects.ts';
import { waitFor } from '../support/process.ts';
import { diagnosed, startSuiteCluster, stopSuiteCluster } from './cluster-suite.ts';
import { describeLoad, startDnsLoad, type DnsLoadResult } from './dns-load.ts';
import {
  deployment,
  etcdRecords,
  nodeLossToleration,
  scaffoldUserRepo,
  WEB,
  webWrong,
  type UserRepo,
} from './gitops-repo.ts';
import { packReleases, type Releases } from './release-tarballs.ts';
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

const APP = 'etcdns-dev';
const SOURCE = 'dns-gitops';
/** The address the check, playing MetalLB, gives the DNS LoadBalancer Service. */
const DNS_LB_ADDRESS = '10.213.200.53';
const MAIL = { name: 'mail.dev.example.org', ip: '192.0.2.25' };
/** dist/staging's Certificates and ExternalSecret, applied by a second Application from this folder of the repository. */
const SECRETS = { app: 'etcdns-staging-secrets', path: 'staging-secrets', namespace: 'etcdns-staging' };
/** The message Argo CD's own health check gives each kind before its operator reports. */
const WAITING: Record<string, string> = {
  Certificate: 'Waiting for certificate',
  ExternalSecret: 'Waiting for ExternalSecret',
};
/** How long deleting the Application with the resources finalizer may take (the DNS servers' drain included). */
const DELETION_BOUND_MS = 120_000;

let cluster: Cluster;
let images: ClusterImages;
let argocd: ArgoCd;
let git: GitServer;
let releases: Releases;
let user: UserRepo;
let dns: DnsService;
let stopLoadBalancer: (() => Promise<void>) | undefined;
let secretSources: string[];
const figures: string[] = [];

/** Commits and pushes, then asks Argo CD to refresh now (what its Git webhook does); returns the commit. */
function commitAndPush(message: string): string {
  const commit = user.commitAndPush(message);
  argocd.refresh(APP);
  return commit;
}

/** The Application Synced at `commit` and Healthy, and no pod left terminating; milliseconds it took. */
async function synced(commit: string, timeoutMs = 300_000): Promise<number> {
  const t0 = performance.now();
  await diagnosed(cluster, () => waitApplication(argocd, APP, { revision: commit, timeoutMs }));
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

/** Waits until Argo CD synced `commit` while the checked load runs, and 3 s of the new pods after. */
async function syncUnderLoad(commit: string): Promise<{ load: DnsLoadResult; syncedMs: number }> {
  const load = webLoad();
  const syncedMs = await synced(commit).catch(async (e: unknown) => {
    await load.stop();
    throw e;
  });
  return { load: await load.stop(3000), syncedMs };
}

/** Commits what `change` does to the repository and waits until Argo CD synced it, under load. */
async function rollUnderLoad(what: string, change: () => void): Promise<{ load: DnsLoadResult; commit: string }> {
  change();
  const commit = commitAndPush(what);
  const { load, syncedMs } = await syncUnderLoad(commit);
  figures.push(`${what}: Synced and Healthy ${syncedMs} ms after the push; ${describeLoad(load)}`);
  return { load, commit };
}

/** "Kind/name" -> resourceVersion of every object the Application tracks. */
async function resourceVersions(status: ApplicationStatus | undefined): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const r of status?.resources ?? []) {
    const kind = r.group ? `${r.kind}.${r.group}` : r.kind;
    const args = ['get', kind, r.name, '-o', 'jsonpath={.metadata.resourceVersion}'];
    out.set(`${r.kind}/${r.name}`, cluster.kubectl(r.namespace ? ['-n', r.namespace, ...args] : args));
  }
  return out;
}

/** A merge patch of the Application. */
function patchApplication(patch: object): void {
  cluster.kubectl([
    'patch',
    '-n',
    ARGOCD_NAMESPACE,
    'applications.argoproj.io',
    APP,
    '--type=merge',
    '-p',
    JSON.stringify(patch),
  ]);
}

/** Starts a sync of `revision` as `argocd app sync [--prune]` does (the Application's operation field). */
function requestSync(revision: string, o: { prune?: boolean } = {}): void {
  patchApplication({
    operation: {
      initiatedBy: { username: 'etcdns-test' },
      sync: { revision, ...(o.prune ? { prune: true } : {}), syncOptions: ['ServerSideApply=true'] },
    },
  });
}

/** Creation time (ms) of an object, by kubectl's kind/name. */
function created(kindName: string, namespace?: string): number {
  const args = ['get', kindName, '-o', 'jsonpath={.metadata.creationTimestamp}'];
  return Date.parse(cluster.kubectl(namespace ? ['-n', namespace, ...args] : args));
}

/** The operators' CRDs of the Secrets' sources etcdns renders: cert-manager's and External Secrets' ExternalSecret. */
async function installSecretSourceCrds(): Promise<void> {
  const dir = (name: string) => join(repoRoot, '.cache', 'crds', name);
  const files = [
    ...readdirSync(dir(`cert-manager-${CERT_MANAGER_VERSION}`))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(dir(`cert-manager-${CERT_MANAGER_VERSION}`), f)),
    join(dir(`external-secrets-${EXTERNAL_SECRETS_VERSION}`), 'external-secrets.io_externalsecrets.yaml'),
  ];
  await installCrds(cluster.admin, crdsIn(files), 'as-is');
}

/** Copies dist/staging's Certificates and ExternalSecret into the repository's SECRETS.path; their file names. */
function addSecretSources(): string[] {
  const staging = join(repoRoot, 'dist', 'staging');
  const files = readdirSync(staging).filter((f) => /^(certificate|externalsecret)-/.test(f));
  const dir = join(user.dir, SECRETS.path);
  mkdirSync(dir);
  for (const f of files) copyFileSync(join(staging, f), join(dir, f));
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    dump({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: files }),
  );
  return files;
}

/** The scaffold's Application, renamed, reading SECRETS.path into its own namespace (CreateNamespace, as staging does). */
function secretsApplication(): string {
  type App = {
    metadata: { name: string };
    spec: { source: { path: string }; destination: { namespace: string }; syncPolicy: { syncOptions: string[] } };
  };
  const app = load(readFileSync(join(user.dir, 'gitops', 'argocd', 'dev.yaml'), 'utf8')) as App;
  app.metadata.name = SECRETS.app;
  app.spec.source.path = SECRETS.path;
  app.spec.destination.namespace = SECRETS.namespace;
  app.spec.syncPolicy.syncOptions.push('CreateNamespace=true');
  return JSON.stringify(app);
}

const podUids = async () => new Set((await pods(cluster.admin)).map((p) => p.uid));

/** A DNSEndpoint of generation 2 with `status`, as the API server stores it. */
const endpointWith = (status: object | undefined) => ({
  apiVersion: 'externaldns.k8s.io/v1alpha1',
  kind: 'DNSEndpoint',
  metadata: { name: 'mail', namespace: NAMESPACE, generation: 2 },
  spec: { endpoints: [{ dnsName: MAIL.name, recordType: 'A', targets: [MAIL.ip] }] },
  ...(status ? { status } : {}),
});
const ready = (status: string, reason: string, observedGeneration = 2) => ({
  observedGeneration,
  conditions: [
    { type: 'Accepted', status: 'True', reason: 'Accepted', message: '1 endpoint(s) read', observedGeneration },
    { type: 'Ready', status, reason, message: 'm', observedGeneration, lastTransitionTime: '2026-11-27T00:00:00Z' },
  ],
});

describe("the DNSEndpoint health check etcdns init writes, by Argo CD's own evaluator", () => {
  const dir = tempDir('argocd-health');
  const cm = join(dir, 'argocd-cm.yaml');
  writeFileSync(cm, argoHealthConfigMap());
  for (const [what, status, health] of [
    ['no status yet', undefined, 'Progressing'],
    ['Ready True for this generation', ready('True', 'Programmed'), 'Healthy'],
    ['Ready False (NotOwned)', ready('False', 'NotOwned'), 'Degraded'],
    ['Ready True for an older generation', ready('True', 'Programmed', 1), 'Progressing'],
    ["external-dns's status: this generation observed", { observedGeneration: 2 }, 'Healthy'],
    ["external-dns's status: an older generation", { observedGeneration: 1 }, 'Progressing'],
  ] as const)
    test(`${what}: ${health}`, () => {
      const file = join(dir, `${what.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, JSON.stringify(endpointWith(status)));
      const out = execFileSync(
        join(repoRoot, '.cache', 'bin', 'argocd'),
        ['admin', 'settings', 'resource-overrides', 'health', file, '--argocd-cm-path', cm],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ARGOCD_BINARY_NAME: 'argocd' } },
      );
      assert.match(out, new RegExp(`^STATUS: ${health}$`, 'm'), out);
    });
});

describe('Argo CD syncs the repository etcdns init writes', { timeout: 2_400_000 }, () => {
  before(async () => {
    ({ cluster, images } = await startSuiteCluster(figures));
    releases = packReleases();
    figures.push(`pack N and N+1 ${releases.packMs} ms`);
    await installSecretSourceCrds();
    const t0 = performance.now();
    argocd = await startArgoCd(cluster);
    figures.push(
      `Argo CD CRDs + redis, repo-server, application-controller ready ${Math.round(performance.now() - t0)} ms`,
    );
    git = await startGitServer();
    user = scaffoldUserRepo({
      name: SOURCE,
      tarball: releases.current.tarball,
      repoUrl: git.url(SOURCE),
      bare: git.bareRepo(SOURCE),
      gitops: 'argocd',
      images,
      figures,
    });
    // As shared.ts's comments offer: DNSEndpoints (their CRD in dist/) with a record kept in Git;
    // and Argo CD's sync waves.
    user.edit(
      'environments/dev.ts',
      "ownership: { ownerId: 'etcdns-dev' },",
      `ownership: { ownerId: 'etcdns-dev' },
  sources: { kinds: ['service', 'ingress', 'crd'], dnsEndpointCrd: true },
  records: [{ name: '${MAIL.name}', type: 'A', targets: ['${MAIL.ip}'] }],
  gitops: { syncWaves: true },`,
    );
    user.run('npm', ['run', 'synth']);
    secretSources = addSecretSources();
  });

  after(() =>
    stopSuiteCluster(
      cluster,
      figures,
      () => stopLoadBalancer?.(),
      () => argocd?.stop(),
    ),
  );

  test('(1) init -> commit -> gitops/argocd/ applied: waves in order, Synced and Healthy; a second sync changes nothing; a Service created afterwards answers', async () => {
    await createEtcdVolumes(cluster, { statefulSet: 'etcdns-etcd', ordinals: [0], size: '1Gi' });
    const t0 = performance.now();
    const commit = user.commitAndPush('DNS for dev: etcdns init, images of this cluster, DNSEndpoints, sync waves');
    // As gitops/argocd/argocd-cm.yaml says (a merge patch of the argocd-cm Argo CD installed), then
    // kubectl apply -n argocd -f gitops/argocd/dev.yaml.
    cluster.kubectl([
      '-n',
      ARGOCD_NAMESPACE,
      'patch',
      'configmap',
      'argocd-cm',
      '--type=merge',
      `--patch-file=${join(user.dir, 'gitops', 'argocd', 'argocd-cm.yaml')}`,
    ]);
    const cm = JSON.parse(cluster.kubectl(['get', '-n', ARGOCD_NAMESPACE, 'configmap', 'argocd-cm', '-o', 'json'])) as {
      data: Record<string, string>;
    };
    assert.ok(cm.data['resource.exclusions'], "argocd-cm's own keys are kept");
    cluster.kubectl(['apply', '-n', ARGOCD_NAMESPACE, '-f', join(user.dir, 'gitops', 'argocd', 'dev.yaml')]);
    cluster.kubectl(['apply', '-n', ARGOCD_NAMESPACE, '-f', '-'], secretsApplication());

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

    // The DNS LoadBalancer Service is the last wave. Without an address the sync completes, but
    // the Application stays Progressing on that Service alone.
    const progressing = await diagnosed(cluster, () =>
      waitFor(
        'the sync Succeeded, the Application Progressing',
        async () => {
          const s = await argocd.application(APP);
          const done = s?.sync?.status === 'Synced' && s.sync.revision === commit;
          return done && s?.operationState?.phase === 'Succeeded' && s.health?.status === 'Progressing' ? s : undefined;
        },
        300_000,
        100,
      ),
    );
    const progressingMs = Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 3000));
    const still = await argocd.application(APP);
    for (const s of [progressing, still]) {
      const waiting = unhealthy(s);
      assert.equal(waiting.length, 1, waiting.join('; '));
      assert.ok(waiting[0]!.startsWith(`Service/${NAMESPACE}/${SERVER} Progressing`), waiting[0]);
    }
    figures.push(
      `first commit -> sync Succeeded, Progressing on the DNS Service alone (no address) ${progressingMs} ms`,
    );
    stopLoadBalancer = assignLoadBalancerAddress(cluster.admin, {
      name: SERVER,
      namespace: NAMESPACE,
      address: DNS_LB_ADDRESS,
    });
    const status = await diagnosed(cluster, () =>
      waitApplication(argocd, APP, { revision: commit, timeoutMs: 300_000 }),
    );
    const syncedMs = Math.round(performance.now() - t0);
    await answered;
    figures.push(
      `first commit -> Synced and Healthy ${syncedMs} ms`,
      `first commit -> first DNS answer ${firstAnswerMs} ms`,
    );

    // Every synthesized kind has Argo CD's health, Healthy; the DNSEndpoint by the check etcdns init wrote.
    assert.deepEqual(unhealthy(status), []);
    const healthOf = (kind: string) => status.resources?.filter((r) => r.kind === kind).map((r) => r.health?.status);
    for (const kind of ['StatefulSet', 'Deployment', 'PersistentVolumeClaim', 'PodDisruptionBudget', 'DNSEndpoint'])
      if (status.resources?.some((r) => r.kind === kind))
        assert.ok(
          healthOf(kind)?.every((h) => h === 'Healthy'),
          `${kind}: ${JSON.stringify(healthOf(kind))}`,
        );
    const endpoints = status.resources?.filter((r) => r.kind === 'DNSEndpoint') ?? [];
    assert.ok(endpoints.length > 0, 'the record kept in Git is a DNSEndpoint');
    for (const e of endpoints)
      assert.match(e.health?.message ?? '', /^Programmed: /, `${e.name}: ${e.health?.message}`);
    const mail = await digAt(dns.clusterIp, 53, MAIL.name, 'A');
    assert.equal(mail.answer.find((a) => a.type === 'A')?.data, MAIL.ip, 'the record kept in Git answers');
    figures.push(
      `kinds with a health: ${[...new Set(status.resources?.filter((r) => r.health).map((r) => r.kind))].sort().join(', ')}`,
    );

    // The waves, in order: the CRD first, etcd Ready before the workloads, the DNS Service last.
    const wave = (kind: string) => status.resources?.find((r) => r.kind === kind)?.syncWave ?? 0;
    assert.equal(wave('CustomResourceDefinition'), -3);
    const crd = created('customresourcedefinition/dnsendpoints.externaldns.k8s.io');
    const etcdSet = created('statefulset/etcdns-etcd', NAMESPACE);
    const controller = created('deployment/etcdns-controller', NAMESPACE);
    const service = created(`service/${SERVER}`, NAMESPACE);
    const etcdPod = await cluster.admin
      .makeApiClient(k8s.CoreV1Api)
      .readNamespacedPod({ name: 'etcdns-etcd-0', namespace: NAMESPACE });
    const etcdReady = Date.parse(
      String(etcdPod.status?.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? ''),
    );
    const endpointCreated = endpoints.map((e) => created(`dnsendpoint/${e.name}`, NAMESPACE));
    assert.ok(crd <= etcdSet, 'the CRD before etcd');
    assert.ok(etcdReady <= controller, 'the workloads after etcd was Ready');
    assert.ok(
      endpointCreated.every((t) => t >= crd),
      'the DNSEndpoints after their CRD',
    );
    assert.ok(service >= Math.max(controller, ...endpointCreated), 'the DNS Service last');
    figures.push(
      `waves: CRD +0 s, etcd StatefulSet +${(etcdSet - crd) / 1000} s, workloads +${(controller - crd) / 1000} s, DNS Service +${(service - crd) / 1000} s`,
    );
    for (const p of await pods(cluster.admin)) assert.equal(p.restarts, 0, `${p.name} restarted`);

    // No perpetual diff: a hard refresh still finds it Synced, and a second sync of the same
    // revision rewrites no object.
    const versions = await resourceVersions(status);
    const startedBefore = status.operationState?.startedAt;
    requestSync(commit);
    const second = await waitFor(
      'the second sync finished',
      async () => {
        const s = await argocd.application(APP);
        const op = s?.operationState;
        return op?.startedAt !== startedBefore && op?.phase === 'Succeeded' ? s : undefined;
      },
      120_000,
      100,
    );
    assert.equal(second.sync?.status, 'Synced');
    const changed = [...(await resourceVersions(second))].filter(([k, v]) => versions.get(k) !== v);
    assert.deepEqual(changed, [], 'objects a second sync of the same revision changed');
    figures.push(`a second sync of the first revision: ${versions.size} objects, none changed`);

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

  test("(1b) dist/staging's Certificates and ExternalSecret: Progressing until their operators report Ready, then Healthy, by Argo CD's own health checks", async () => {
    const ofKind = (st: ApplicationStatus | undefined) =>
      (st?.resources ?? []).filter((r) => Object.keys(WAITING).includes(r.kind));
    const waiting = await untilApplication(
      argocd,
      SECRETS.app,
      'the secrets Application synced, each object assessed',
      (st) =>
        st.operationState?.phase === 'Succeeded' &&
        st.sync?.status === 'Synced' &&
        ofKind(st).length === secretSources.length &&
        ofKind(st).every((r) => r.health),
      120_000,
    );
    assert.deepEqual(
      ofKind(waiting).map((r) => `${r.kind}/${r.name} ${r.health?.status}: ${r.health?.message}`),
      ofKind(waiting).map((r) => `${r.kind}/${r.name} Progressing: ${WAITING[r.kind]}`),
    );
    assert.equal(waiting.health?.status, 'Progressing');
    // Playing cert-manager and the External Secrets Operator (neither runs here): their Ready condition.
    const t0 = performance.now();
    for (const r of ofKind(waiting)) {
      const condition = {
        type: 'Ready',
        status: 'True',
        reason: 'Ready',
        message: `${r.kind} ${r.name} is ready`,
        lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      };
      cluster.kubectl([
        'patch',
        '-n',
        SECRETS.namespace,
        `${r.kind.toLowerCase()}.${r.group}`,
        r.name,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { conditions: [condition] } }),
      ]);
    }
    const healthy = await untilApplication(
      argocd,
      SECRETS.app,
      'the secrets Application Healthy',
      (st) => st.health?.status === 'Healthy',
      60_000,
    );
    assert.deepEqual(
      ofKind(healthy).map((r) => `${r.kind}/${r.name} ${r.health?.status}: ${r.health?.message}`),
      ofKind(healthy).map((r) => `${r.kind}/${r.name} Healthy: ${r.kind} ${r.name} is ready`),
    );
    figures.push(
      `dist/staging's ${ofKind(healthy)
        .map((r) => r.kind)
        .join(
          ', ',
        )}: Progressing until Ready, then Healthy ${Math.round(performance.now() - t0)} ms after their Ready condition`,
    );
  });

  test('(2) an environment change (a new zone, 2 server replicas) is synced with no failed query', async () => {
    const { load } = await rollUnderLoad('a new zone and 2 DNS servers', () => {
      user.edit(
        'environments/dev.ts',
        "zones: [{ name: 'dev.example.org', defaultTtl: 30 }],",
        "zones: [{ name: 'dev.example.org', defaultTtl: 30 }, { name: 'lab.example.net' }],",
      );
      user.edit('environments/dev.ts', 'server: { replicas: 1,', 'server: { replicas: 2,');
      user.run('npm', ['run', 'synth']);
    });
    await waitPodsReady(cluster.admin, component('server-internal'), 2);
    const lab = await digAt(dns.clusterIp, 53, 'lab.example.net', 'SOA');
    assert.equal(lab.status, 'NOERROR', 'the new zone answers');
    assert.deepEqual(load.failures, [], `${load.failures.length} of ${load.queries} lookups failed`);
  });

  test('(5) self-heal: the server Deployment scaled by hand is put back', async () => {
    const startedBefore = (await argocd.application(APP))?.operationState?.startedAt;
    const load = webLoad();
    const t0 = performance.now();
    cluster.kubectl(['scale', '-n', NAMESPACE, `deployment/${SERVER}`, '--replicas=3']);
    await waitFor(
      'replicas put back to 2',
      async () => ((await deployment(cluster, SERVER)).spec?.replicas === 2 ? true : undefined),
      60_000,
      50,
    );
    const ms = Math.round(performance.now() - t0);
    // The Deployment can be put back a moment before Argo CD records the sync that did it.
    await untilApplication(
      argocd,
      APP,
      'the self-heal sync recorded, the Deployment in it',
      (st) =>
        st.operationState?.startedAt !== startedBefore &&
        st.operationState?.phase === 'Succeeded' &&
        (st.operationState.syncResult?.resources ?? []).some((r) => r.kind === 'Deployment' && r.name === SERVER),
      30_000,
    );
    const result = await load.stop();
    figures.push(`self-heal (replicas 2 -> 3 by hand) put back ${ms} ms after the edit; ${describeLoad(result)}`);
    await waitPodsReady(cluster.admin, component('server-internal'), 2);
    assert.deepEqual(result.failures, []);
  });

  test('(3) upgrade N -> N+1 and rollback by git revert: no failed query, the records in etcd untouched', async () => {
    const before = await etcdRecords(cluster);
    const podsBefore = await podUids();
    assert.ok(
      [...before.keys()].some((k) => k.endsWith('/web') || k.includes('/web/')),
      `web's record: ${[...before.keys()]}`,
    );
    assert.equal(nodeLossToleration((await deployment(cluster, SERVER)).spec?.template.spec), undefined);

    const up = await rollUnderLoad(`etcdns ${releases.current.version} -> ${releases.next.version}`, () => {
      user.run('npm', [
        'install',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        `etcdns@file:${releases.next.tarball}`,
      ]);
      user.edit(
        'environments/dev.ts',
        'server: { replicas: 2,',
        'server: { replicas: 2, nodeLossToleranceSeconds: 30,',
      );
      user.run('npm', ['run', 'synth']);
    });
    assert.equal(nodeLossToleration((await deployment(cluster, SERVER)).spec?.template.spec), 30);
    assert.equal(nodeLossToleration((await deployment(cluster, 'etcdns-controller')).spec?.template.spec), 60);
    assert.deepEqual(await etcdRecords(cluster), before, 'records after the upgrade');
    const podsUpgraded = await podUids();
    assert.ok(
      [...podsUpgraded].every((uid) => !podsBefore.has(uid)),
      'every pod was replaced',
    );

    user.run('git', ['revert', '--no-edit', 'HEAD']);
    user.run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
    const revert = user.push();
    argocd.refresh(APP);
    const { load: down, syncedMs } = await syncUnderLoad(revert);
    figures.push(`rollback (git revert): Synced and Healthy ${syncedMs} ms after the push; ${describeLoad(down)}`);
    assert.equal(nodeLossToleration((await deployment(cluster, SERVER)).spec?.template.spec), undefined);
    assert.deepEqual(await etcdRecords(cluster), before, 'records after the rollback');
    assert.ok(
      [...(await podUids())].every((uid) => !podsUpgraded.has(uid)),
      'every pod was replaced again',
    );
    assert.deepEqual(up.load.failures, [], `upgrade: ${up.load.failures.length} of ${up.load.queries} lookups failed`);
    assert.deepEqual(down.failures, [], `rollback: ${down.failures.length} of ${down.queries} lookups failed`);
  });

  test('(4) prune: what leaves dist/ is deleted', async () => {
    const networking = cluster.admin.makeApiClient(k8s.NetworkingV1Api);
    const policies = async () => (await networking.listNamespacedNetworkPolicy({ namespace: NAMESPACE })).items.length;
    assert.ok((await policies()) > 0);
    const { load } = await rollUnderLoad('no NetworkPolicies', () => {
      user.edit(
        'environments/dev.ts',
        "ownership: { ownerId: 'etcdns-dev' },",
        "ownership: { ownerId: 'etcdns-dev' },\n  networkPolicy: { enabled: false },",
      );
      user.run('npm', ['run', 'synth']);
    });
    assert.equal(await policies(), 0, 'the NetworkPolicies that left dist/ were pruned');
    assert.deepEqual(load.failures, []);
  });

  test('(4b) the DNSEndpoint CRD left out of dist/ stays: Argo CD does not track a CRD, and a sync with prune leaves it and the DNSEndpoints', async () => {
    const crd = 'customresourcedefinition/dnsendpoints.externaldns.k8s.io';
    const uid = () => cluster.kubectl(['get', crd, '-o', 'jsonpath={.metadata.uid}']);
    const before = uid();
    const tracksCrd = (st: ApplicationStatus) =>
      (st.resources ?? []).some((r) => r.kind === 'CustomResourceDefinition');
    user.edit('environments/dev.ts', 'dnsEndpointCrd: true', 'dnsEndpointCrd: false');
    user.run('npm', ['run', 'synth']);
    const commit = commitAndPush('the DNSEndpoint CRD out of dist/');
    const compared = await untilApplication(
      argocd,
      APP,
      'Synced at the commit without the CRD',
      (st) => st.sync?.revision === commit && st.sync.status === 'Synced' && !tracksCrd(st),
      120_000,
    );
    // Nothing to sync, so nothing was: a sync with prune, as `argocd app sync --prune` asks.
    requestSync(commit, { prune: true });
    const pruned = await untilApplication(
      argocd,
      APP,
      'the sync with prune finished',
      (st) =>
        st.operationState?.startedAt !== compared.operationState?.startedAt &&
        st.operationState?.phase === 'Succeeded' &&
        st.operationState.syncResult?.revision === commit,
      120_000,
    );
    assert.deepEqual(
      (pruned.operationState?.syncResult?.resources ?? []).filter((r) => r.status !== 'Synced'),
      [],
      'nothing pruned',
    );
    assert.equal(uid(), before, 'the same CRD');
    const mail = await digAt(dns.clusterIp, 53, MAIL.name, 'A');
    assert.equal(mail.answer.find((a) => a.type === 'A')?.data, MAIL.ip, 'the DNSEndpoint kept in Git still answers');
    user.run('git', ['revert', '--no-edit', 'HEAD']);
    const revert = user.push();
    argocd.refresh(APP);
    // The CRD in dist/ again is the one that runs: Synced with nothing to apply, so no sync.
    await untilApplication(
      argocd,
      APP,
      'Synced at the revert, the CRD in dist/ again',
      (st) =>
        st.sync?.revision === revert && st.sync.status === 'Synced' && st.health?.status === 'Healthy' && tracksCrd(st),
      120_000,
    );
    assert.equal(uid(), before, 'the same CRD, in dist/ again');
    figures.push('the CRD out of dist/: Synced without it, a sync with prune left it (same uid) and the DNSEndpoints');
  });

  test('(6) the Application deleted as written: nothing is deleted, no answer lost; applied again, it adopts the running stack', async () => {
    const appFile = join(user.dir, 'gitops', 'argocd', 'dev.yaml');
    const deleteApp = () =>
      cluster.kubectl(['delete', '-n', ARGOCD_NAMESPACE, `applications.argoproj.io/${APP}`, '--timeout=180s']);
    const podsBefore = await podUids();
    const records = await etcdRecords(cluster);
    const load = webLoad();
    deleteApp();
    await new Promise((r) => setTimeout(r, 3000));
    assert.deepEqual(await podUids(), podsBefore, 'as written (no finalizer), every object stays');
    cluster.kubectl(['apply', '-n', ARGOCD_NAMESPACE, '-f', appFile]);
    const head = user.run('git', ['rev-parse', 'HEAD']).trim();
    const readopted = await synced(head);
    const result = await load.stop();
    figures.push(
      `Application deleted as written and applied again: Synced and Healthy ${readopted} ms; ${describeLoad(result)}`,
    );
    assert.deepEqual(await podUids(), podsBefore, 'applied again, it adopts what runs');
    assert.deepEqual(result.failures, []);

    assert.deepEqual(await etcdRecords(cluster), records, 'the records, revisions too');
  });

  test("(7) the Application deleted with the resources finalizer: what Argo CD applied goes, the last wave first; the Namespace, the DNSEndpoint CRD and etcd's claim stay", async () => {
    const tracked = (await argocd.application(APP))?.resources ?? [];
    // Delete=false on the Namespace; Argo CD never deletes a CRD with an Application.
    const kept = (r: ResourceStatus) => r.kind === 'Namespace' || r.kind === 'CustomResourceDefinition';
    assert.deepEqual(
      tracked
        .filter(kept)
        .map((r) => r.kind)
        .sort(),
      ['CustomResourceDefinition', 'Namespace'],
    );
    const watch = await watchDeletions(
      cluster,
      tracked.map((r) => ({ ...r, version: r.version ?? 'v1' })),
    );
    patchApplication({ metadata: { finalizers: ['resources-finalizer.argocd.argoproj.io'] } });
    const t0 = performance.now();
    cluster.kubectl(['delete', '-n', ARGOCD_NAMESPACE, `applications.argoproj.io/${APP}`, '--wait=false']);
    try {
      await waitFor(
        'the Application and its objects deleted',
        async () => ((await argocd.application(APP)) === undefined ? true : undefined),
        DELETION_BOUND_MS,
        250,
      );
    } catch (e) {
      const left = tracked.filter((r) => !kept(r) && watch.marks().get(objectKey(r))?.gone === undefined);
      throw new Error(
        `${(e as Error).message}; not deleted: ${left.map(objectKey).join(', ')}\n${cluster.kubectl(['get', 'all', '-n', NAMESPACE, '-o', 'wide'], undefined, true)}\n${argocd.logs()}`,
        { cause: e },
      );
    } finally {
      watch.stop();
    }
    const deletedMs = Math.round(performance.now() - t0);
    const marks = watch.marks();
    for (const r of tracked)
      if (kept(r)) assert.equal(marks.get(objectKey(r))?.marked, undefined, `${objectKey(r)} is kept`);
      else assert.notEqual(marks.get(objectKey(r))?.gone, undefined, `${objectKey(r)} is deleted`);
    // Wave by wave from the last: every object of a wave gone before one of the wave below is touched.
    const deleted = tracked.filter((r) => !kept(r));
    const waves = [...new Set(deleted.map((r) => r.syncWave ?? 0))].sort((a, b) => b - a);
    for (const [i, wave] of waves.slice(0, -1).entries()) {
      const revisions = (w: number, m: keyof DeletionMarks) =>
        deleted.filter((r) => (r.syncWave ?? 0) === w).map((r) => marks.get(objectKey(r))![m]!);
      const lastGone = Math.max(...revisions(wave, 'gone'));
      const firstMarked = Math.min(...revisions(waves[i + 1]!, 'marked'));
      assert.ok(
        lastGone < firstMarked,
        `wave ${wave} gone (revision ${lastGone}) before wave ${waves[i + 1]} (${firstMarked})`,
      );
    }
    cluster.kubectl(['get', 'namespace', NAMESPACE]);
    cluster.kubectl(['get', 'customresourcedefinition', 'dnsendpoints.externaldns.k8s.io']);
    cluster.kubectl(['get', 'persistentvolumeclaim', '-n', NAMESPACE, 'data-etcdns-etcd-0']);
    figures.push(
      `Application deleted with the resources finalizer: ${deleted.length} objects deleted in waves ${waves.join(', ')} within ${deletedMs} ms; the Namespace, the CRD and etcd's claim kept`,
    );
  });
});
