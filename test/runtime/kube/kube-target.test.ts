// Table tests of how the controller finds its API server and credentials: kubeconfig files (one
// or merged), the in-cluster ServiceAccount, and the errors that name the field at fault.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadKubeTarget, type KubeTarget } from '../../../src/runtime/kube/kube-target.ts';
import { tempDir } from '../../support/temp-dir.ts';

const CA = '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Writes files (relative names) into a fresh directory; returns the directory. */
function files(entries: Record<string, string>): string {
  const dir = tempDir('kubeconfig');
  for (const [name, text] of Object.entries(entries)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function kubeconfig(cluster: string, user: string, extra = ''): string {
  return `apiVersion: v1
kind: Config
current-context: main
contexts:
- name: main
  context: {cluster: c, user: u}
clusters:
- name: c
  cluster:
${cluster.replace(/^/gm, '    ')}
users:
- name: u
  user:
${user.replace(/^/gm, '    ')}
${extra}`;
}

const loads: {
  name: string;
  cluster: string;
  user: string;
  files?: Record<string, string>;
  want: Partial<KubeTarget>;
}[] = [
  {
    name: 'inline CA and token',
    cluster: `server: https://127.0.0.1:6443/\ncertificate-authority-data: ${b64(CA)}`,
    user: 'token: abc',
    want: { server: 'https://127.0.0.1:6443', ca: CA, insecureSkipTlsVerify: false, bearer: { token: 'abc' } },
  },
  {
    name: 'files relative to the kubeconfig',
    cluster: 'server: https://k8s.example:443\ncertificate-authority: pki/ca.crt\ntls-server-name: api.internal',
    user: 'client-certificate: pki/me.crt\nclient-key: pki/me.key\ntokenFile: secrets/token',
    files: { 'pki/ca.crt': CA, 'pki/me.crt': 'CERT', 'pki/me.key': 'KEY' },
    want: {
      ca: CA,
      tlsServerName: 'api.internal',
      clientCertificate: { cert: 'CERT', key: 'KEY' },
      bearer: { tokenFile: 'DIR/secrets/token' },
    },
  },
  {
    name: 'inline client certificate, insecure, no bearer',
    cluster: 'server: https://10.0.0.1:6443\ninsecure-skip-tls-verify: true',
    user: `client-certificate-data: ${b64('CERT')}\nclient-key-data: ${b64('KEY')}`,
    want: { insecureSkipTlsVerify: true, clientCertificate: { cert: 'CERT', key: 'KEY' }, bearer: undefined },
  },
  {
    name: 'exec plugin, command relative to the kubeconfig',
    cluster: 'server: https://10.0.0.1:6443',
    user: [
      'exec:',
      '  apiVersion: client.authentication.k8s.io/v1',
      '  command: ./bin/login',
      '  args: [get-token, --quiet]',
      '  env: [{name: TEAM, value: dns}]',
      '  installHint: install login',
      '  interactiveMode: Never',
    ].join('\n'),
    want: {
      bearer: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'DIR/bin/login',
          args: ['get-token', '--quiet'],
          env: [{ name: 'TEAM', value: 'dns' }],
          installHint: 'install login',
        },
      },
    },
  },
  {
    name: 'exec plugin found in PATH',
    cluster: 'server: http://127.0.0.1:8080',
    user: 'exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: kubelogin}',
    want: {
      server: 'http://127.0.0.1:8080',
      bearer: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'kubelogin', args: [], env: [] } },
    },
  },
];

for (const c of loads) {
  test(`kubeconfig: ${c.name}`, () => {
    const dir = files({ ...c.files, config: kubeconfig(c.cluster, c.user) });
    const got = loadKubeTarget(join(dir, 'config'), {});
    const want = JSON.parse(JSON.stringify(c.want).replaceAll('DIR', dir)) as Partial<KubeTarget>;
    for (const [field, value] of Object.entries(c.want)) {
      assert.deepEqual(
        got[field as keyof KubeTarget],
        value === undefined ? undefined : want[field as keyof KubeTarget],
        field,
      );
    }
    assert.equal(got.source, join(dir, 'config'));
  });
}

test('kubeconfig: $KUBECONFIG files are merged, the first to set a value wins', () => {
  const dir = files({
    a: 'current-context: second\nusers: [{name: u, user: {token: from-a}}]\n',
    b: [
      'current-context: first',
      'contexts: [{name: first, context: {cluster: c, user: u}}, {name: second, context: {cluster: d, user: u}}]',
      'clusters: [{name: c, cluster: {server: "https://c:1"}}, {name: d, cluster: {server: "https://d:2"}}]',
      'users: [{name: u, user: {token: from-b}}]',
    ].join('\n'),
  });
  // A file named in $KUBECONFIG that does not exist is skipped, as kubectl does.
  const got = loadKubeTarget(undefined, {
    KUBECONFIG: [join(dir, 'a'), join(dir, 'missing'), join(dir, 'b')].join(':'),
  });
  assert.equal(got.server, 'https://d:2');
  assert.deepEqual(got.bearer, { token: 'from-a' });
});

test('in a pod: the ServiceAccount token file and CA, the API server from the environment', () => {
  const dir = files({ 'ca.crt': CA, token: 't' });
  const v4 = loadKubeTarget(undefined, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir);
  assert.deepEqual(v4, {
    server: 'https://10.96.0.1:443',
    ca: CA,
    insecureSkipTlsVerify: false,
    bearer: { tokenFile: join(dir, 'token') },
    source: 'in-cluster ServiceAccount',
  });
  const v6 = loadKubeTarget(undefined, { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
  assert.equal(v6.server, 'https://[fd00::1]:443');
  // --kubeconfig wins over the pod's ServiceAccount.
  const file = join(files({ config: kubeconfig('server: https://x:1', 'token: y') }), 'config');
  assert.equal(
    loadKubeTarget(file, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' }, dir).server,
    'https://x:1',
  );
});

/** Where the API server is found, in the order of controller-runtime and client-go. */
const orderRows: {
  name: string;
  flag?: boolean;
  kubeconfigEnv?: 'present' | 'missing';
  pod?: boolean;
  home?: boolean;
  want: string | RegExp;
}[] = [
  {
    name: '--kubeconfig before everything',
    flag: true,
    kubeconfigEnv: 'present',
    pod: true,
    home: true,
    want: 'https://flag:1',
  },
  {
    name: "$KUBECONFIG before the pod's ServiceAccount",
    kubeconfigEnv: 'present',
    pod: true,
    home: true,
    want: 'https://env:1',
  },
  {
    name: "a $KUBECONFIG naming no existing file: the pod's ServiceAccount",
    kubeconfigEnv: 'missing',
    pod: true,
    home: true,
    want: 'https://10.96.0.1:443',
  },
  { name: "the pod's ServiceAccount before ~/.kube/config", pod: true, home: true, want: 'https://10.96.0.1:443' },
  { name: '~/.kube/config last', home: true, want: 'https://home:1' },
  {
    name: 'a $KUBECONFIG naming no existing file, outside a pod: not ~/.kube/config',
    kubeconfigEnv: 'missing',
    home: true,
    want: /no kubeconfig found \(.*missing\)/,
  },
  { name: 'nothing at all', want: /no kubeconfig found \(.*\.kube\/config\); pass --kubeconfig, or run in a pod/ },
];

for (const row of orderRows) {
  test(`where: ${row.name}`, () => {
    const dir = files({
      flag: kubeconfig('server: https://flag:1', 'token: f'),
      env: kubeconfig('server: https://env:1', 'token: e'),
      'sa/ca.crt': CA,
      'sa/token': 't',
      ...(row.home ? { 'home/.kube/config': kubeconfig('server: https://home:1', 'token: h') } : {}),
    });
    const env: NodeJS.ProcessEnv = { HOME: join(dir, 'home') };
    if (row.kubeconfigEnv) env.KUBECONFIG = join(dir, row.kubeconfigEnv === 'present' ? 'env' : 'missing');
    if (row.pod) Object.assign(env, { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' });
    const load = () => loadKubeTarget(row.flag ? join(dir, 'flag') : undefined, env, join(dir, 'sa'));
    if (row.want instanceof RegExp) assert.throws(load, row.want);
    else assert.equal(load().server, row.want);
  });
}

const failures: { name: string; text?: string; cluster?: string; user?: string; error: RegExp }[] = [
  { name: 'no current-context', text: 'clusters: []\n', error: /config: current-context is not set/ },
  {
    name: 'an unknown context',
    text: 'current-context: nope\ncontexts: [{name: main, context: {cluster: c}}]\n',
    error: /contexts has no entry named "nope"/,
  },
  {
    name: 'no server',
    cluster: 'certificate-authority-data: eA==',
    user: 'token: t',
    error: /clusters\[c\]\.cluster\.server is required/,
  },
  {
    name: 'a server that is not a URL',
    cluster: 'server: 10.0.0.1:6443',
    user: 'token: t',
    error: /clusters\[c\]\.cluster\.server: "10\.0\.0\.1:6443" is not an http\(s\) URL/,
  },
  {
    name: 'a proxy',
    cluster: 'server: https://a:1\nproxy-url: http://p:3128',
    user: 'token: t',
    error: /clusters\[c\]\.cluster\.proxy-url is not supported/,
  },
  {
    name: 'an auth-provider',
    cluster: 'server: https://a:1',
    user: 'auth-provider: {name: oidc}',
    error: /users\[u\]\.user\.auth-provider is not supported \(use an exec credential plugin\)/,
  },
  {
    name: 'basic auth',
    cluster: 'server: https://a:1',
    user: 'username: admin',
    error: /users\[u\]\.user\.username is not supported/,
  },
  {
    name: 'a certificate without its key',
    cluster: 'server: https://a:1',
    user: 'client-certificate-data: eA==',
    error: /users\[u\]\.user needs both client-certificate and client-key/,
  },
  {
    name: 'a missing CA file',
    cluster: 'server: https://a:1\ncertificate-authority: nowhere.crt',
    user: 'token: t',
    error: /cannot read clusters\[c\]\.cluster\.certificate-authority .*nowhere\.crt: ENOENT/,
  },
  {
    name: 'a token that is not a string',
    cluster: 'server: https://a:1',
    user: 'token: [1]',
    error: /users\[u\]\.user\.token must be a string/,
  },
  {
    name: 'an exec plugin of an unknown version',
    cluster: 'server: https://a:1',
    user: 'exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}',
    error: /users\[u\]\.user\.exec\.apiVersion "client\.authentication\.k8s\.io\/v1alpha1" is not supported/,
  },
  {
    name: 'exec args that are not strings',
    cluster: 'server: https://a:1',
    user: 'exec: {apiVersion: client.authentication.k8s.io/v1, command: x, args: [1]}',
    error: /users\[u\]\.user\.exec\.args must be a list of strings/,
  },
  { name: 'not YAML', text: 'clusters: [\n', error: /config: not valid YAML/ },
  { name: 'not a mapping', text: '- a\n- b\n', error: /config: not a kubeconfig/ },
];

for (const f of failures) {
  test(`kubeconfig error: ${f.name}`, () => {
    const dir = files({ config: f.text ?? kubeconfig(f.cluster!, f.user!) });
    assert.throws(() => loadKubeTarget(join(dir, 'config'), {}), f.error);
  });
}

test('errors outside a kubeconfig name what is missing', () => {
  assert.throws(
    () => loadKubeTarget('/nonexistent/config', {}),
    /cannot read kubeconfig \/nonexistent\/config: ENOENT/,
  );
  assert.throws(
    () => loadKubeTarget(undefined, { KUBECONFIG: '/nonexistent/a:/nonexistent/b' }),
    /no kubeconfig found \(\/nonexistent\/a:\/nonexistent\/b\); pass --kubeconfig, or run in a pod/,
  );
  assert.throws(
    () => loadKubeTarget(undefined, { KUBERNETES_SERVICE_HOST: '10.96.0.1' }),
    /KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not/,
  );
  assert.throws(
    () =>
      loadKubeTarget(
        undefined,
        { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' },
        '/nonexistent',
      ),
    /cannot read the ServiceAccount CA \/nonexistent\/ca\.crt: ENOENT/,
  );
});
