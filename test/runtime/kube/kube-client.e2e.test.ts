// The controller's own Kubernetes client against the real kube-apiserver: every way it can
// authenticate (token, token file, client certificate, exec plugin), the errors it reports, and
// the list+watch informer (paged list, then adds, updates and deletes through the watch).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { Informer } from '../../../src/runtime/controller/kube/informer.ts';
import { KubeApiError, KubeClient } from '../../../src/runtime/kube/kube-client.ts';
import { loadKubeTarget, type KubeTarget } from '../../../src/runtime/kube/kube-target.ts';
import { createLogger } from '../../../src/runtime/shared/log.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { tool } from '../../support/tools.ts';

let kube: KubeHandle;
let admin: KubeTarget;
let adminToken: string;
const clients: KubeClient[] = [];
const quiet = createLogger('error', {}, () => undefined);

before(async () => {
  kube = await startKubeApiserver();
  admin = loadKubeTarget(kube.kubeconfigFile, {});
  adminToken = (admin.bearer as { token: string }).token;
});
after(async () => {
  for (const c of clients) c.close();
  await stopAll();
});

function client(target: KubeTarget): KubeClient {
  const c = new KubeClient(target);
  clients.push(c);
  return c;
}

const namespace = async (c: KubeClient) =>
  (await c.request<{ metadata: { name: string } }>('GET', '/api/v1/namespaces/default')).metadata.name;

test('a token from the kubeconfig; API errors carry the status, reason and message', async () => {
  const c = client(admin);
  assert.equal(await namespace(c), 'default');
  await assert.rejects(c.request('GET', '/api/v1/namespaces/default/services/nope'), (err: unknown) => {
    assert.ok(err instanceof KubeApiError);
    assert.equal(err.status, 404);
    assert.equal(err.reason, 'NotFound');
    assert.match(err.message, /GET \/api\/v1\/namespaces\/default\/services\/nope: 404 services "nope" not found/);
    return true;
  });
  const sa = loadKubeTarget(kube.writeKubeconfig(await kube.asServiceAccount('default', 'nobody')), {});
  await assert.rejects(client(sa).request('GET', '/api/v1/secrets'), (err: unknown) => {
    assert.ok(err instanceof KubeApiError && err.status === 403 && err.reason === 'Forbidden', String(err));
    return true;
  });
});

test('TLS: a server certificate from an unknown CA is refused unless insecure-skip-tls-verify', async () => {
  const { ca: _ca, ...noCa } = admin;
  await assert.rejects(
    client(noCa).request('GET', '/api/v1/namespaces/default'),
    /self-signed certificate|unable to verify/,
  );
  assert.equal(await namespace(client({ ...noCa, insecureSkipTlsVerify: true })), 'default');
});

test('a token file is re-read when the API server refuses the token it held', async () => {
  const dir = tempDir('token-file');
  const file = join(dir, 'token');
  writeFileSync(file, 'not-a-valid-token\n');
  const c = client({ ...admin, bearer: { tokenFile: file } });
  await assert.rejects(namespace(c), (err: unknown) => err instanceof KubeApiError && err.status === 401);
  writeFileSync(file, `${adminToken}\n`); // the kubelet rotated it
  assert.equal(await namespace(c), 'default');
});

test('a client certificate signed by the cluster CA', async () => {
  const dir = tempDir('client-cert');
  const openssl = (args: string[]) => execFileSync(tool('openssl'), args, { cwd: dir, stdio: 'pipe' });
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/O=system:masters/CN=cert-admin',
    '-keyout',
    'me.key',
    '-out',
    'me.csr',
  ]);
  openssl([
    'x509',
    '-req',
    '-in',
    'me.csr',
    '-CA',
    kube.pki.caCert,
    '-CAkey',
    kube.pki.caKey,
    '-CAcreateserial',
    '-days',
    '1',
    '-out',
    'me.crt',
  ]);
  writeFileSync(
    join(dir, 'config'),
    [
      'current-context: c',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      `clusters: [{name: c, cluster: {server: "${kube.server}", certificate-authority: "${kube.pki.caCert}"}}]`,
      'users: [{name: u, user: {client-certificate: me.crt, client-key: me.key}}]',
    ].join('\n'),
  );
  const target = loadKubeTarget(join(dir, 'config'), {});
  assert.equal(target.bearer, undefined);
  assert.equal(await namespace(client(target)), 'default');
});

test('an exec credential plugin runs once while its credential is valid, and again after a 401', async () => {
  const dir = tempDir('exec-plugin');
  const calls = join(dir, 'calls');
  const tokenFile = join(dir, 'token');
  writeFileSync(calls, '');
  writeFileSync(tokenFile, 'revoked');
  const plugin = join(dir, 'plugin.sh');
  // Checks what the protocol hands it (KUBERNETES_EXEC_INFO, the configured env) and prints the token it has.
  writeFileSync(
    plugin,
    `#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in *'"kind":"ExecCredential"'*) ;; *) echo "no exec info" >&2; exit 1;; esac
[ "$TEAM" = dns ] || { echo "env not passed" >&2; exit 1; }
echo "$1" >> ${calls}
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2999-01-01T00:00:00Z"}}' "$(cat ${tokenFile})"
`,
  );
  chmodSync(plugin, 0o755);
  const c = client({
    ...admin,
    bearer: {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: plugin,
        args: ['get'],
        env: [{ name: 'TEAM', value: 'dns' }],
      },
    },
  });
  const runs = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
  // A refused token: asked again once after the 401, still refused, so the request fails.
  await assert.rejects(namespace(c), (err: unknown) => err instanceof KubeApiError && err.status === 401);
  assert.equal(runs(), 2);
  // The plugin now has a good token; the cached bad one earns a 401, then the plugin is asked again.
  writeFileSync(tokenFile, adminToken);
  assert.equal(await namespace(c), 'default');
  assert.equal(runs(), 3);
  // Valid until 2999: concurrent requests share it, without running the plugin.
  await Promise.all([namespace(c), namespace(c), namespace(c)]);
  assert.equal(runs(), 3);
  const failing = client({
    ...admin,
    bearer: {
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        command: join(dir, 'missing'),
        args: [],
        env: [],
        installHint: 'install it',
      },
    },
  });
  await assert.rejects(namespace(failing), /exec plugin .*missing failed: .*\(install it\)/);
});

test('informer: a paged list, then adds, updates and deletes through the watch', async () => {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'informer' } } });
  const cm = (name: string, value: string) => ({ metadata: { name, namespace: 'informer' }, data: { value } });
  for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: 'informer', body: cm(`cm-${i}`, 'a') });
  let changes = 0;
  const informer = new Informer<k8s.V1ConfigMap>(client(admin), {
    path: '/api/v1/namespaces/informer/configmaps',
    onChange: () => changes++,
    log: quiet,
    pageSize: 2, // three pages
  });
  const values = () =>
    informer
      .list()
      .map((o) => `${o.metadata!.name}=${o.data!.value}`)
      .sort()
      .join(' ');
  try {
    await informer.start();
    assert.ok(informer.synced());
    assert.equal(values(), 'cm-0=a cm-1=a cm-2=a cm-3=a cm-4=a');
    assert.equal(changes, 1);
    await core.createNamespacedConfigMap({ namespace: 'informer', body: cm('cm-5', 'a') });
    await core.replaceNamespacedConfigMap({ name: 'cm-0', namespace: 'informer', body: cm('cm-0', 'b') });
    await core.deleteNamespacedConfigMap({ name: 'cm-1', namespace: 'informer' });
    const want = 'cm-0=b cm-2=a cm-3=a cm-4=a cm-5=a';
    await waitFor('the watch to deliver three changes', async () => (values() === want ? true : undefined), 10_000);
    assert.equal(changes, 4);
    assert.equal(informer.get('informer', 'cm-0')?.data?.value, 'b');
    assert.equal(informer.get('informer', 'cm-1'), undefined);
  } finally {
    informer.stop();
  }
});

test('informer: an unreachable API server leaves it unsynced and retrying, not crashed', async () => {
  const informer = new Informer(client({ ...admin, server: 'https://127.0.0.1:1' }), {
    path: '/api/v1/configmaps',
    onChange: () => assert.fail('no change without a list'),
    log: quiet,
  });
  await informer.start();
  assert.equal(informer.synced(), false);
  assert.deepEqual(informer.list(), []);
  informer.stop();
});

test('informer: across an API server restart it resumes, and ends with what changed meanwhile', async () => {
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: 'restart' } } });
  const cm = (name: string) => ({ metadata: { name, namespace: 'restart' } });
  for (const name of ['a', 'b']) await core.createNamespacedConfigMap({ namespace: 'restart', body: cm(name) });
  const lines: string[] = [];
  const informer = new Informer(client(admin), {
    path: '/api/v1/namespaces/restart/configmaps',
    onChange: () => undefined,
    log: createLogger('info', {}, (line) => lines.push(line)),
  });
  const names = () =>
    informer
      .list()
      .map((o) => o.metadata!.name)
      .sort()
      .join(' ');
  try {
    await informer.start();
    assert.equal(names(), 'a b');
    await kube.restart();
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'restart' });
    await core.createNamespacedConfigMap({ namespace: 'restart', body: cm('c') });
    await waitFor('the informer to catch up', async () => (names() === 'b c' ? true : undefined), 60_000);
    // The restarted server's watch cache starts after our resourceVersion: 410 Gone, then a fresh list.
    for (const msg of ['list or watch failed; retrying', 'watch expired; listing again']) {
      assert.ok(
        lines.some((l) => l.includes(`"msg":"${msg}"`)),
        `${msg}: ${lines.join('')}`,
      );
    }
  } finally {
    informer.stop();
  }
});
