// Least privilege in etcd, on the real programs: the arguments of the Job the constructs render
// for a two-view stack, run as `etcdns etcd-roles` against a real etcd, give it the roles, users
// and authentication; then each user is refused outside its grant (read, write, watch) and works
// inside it, and the real `etcdns server` and `etcdns controller` work with their own users and
// are refused with another's. etcd's tokens live 1 s here (--auth-token-ttl), so every
// long-lived client must outlive its token, as it must after etcd's default 5 minutes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { Etcd3, EtcdPermissionDeniedError, Range } from 'etcd3';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { openCluster } from '../../../src/runtime/etcd-member/member-api.ts';
import { makeTestPki } from '../../support/certificates.ts';
import { controllerKubeconfig, runOnce, startController } from '../controller/controller-harness.ts';
import { answerData, dig } from '../../support/dig.ts';
import { etcdnsServerArgs, startEtcdnsServer } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createLoadBalancerService } from '../../support/kube-objects.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor, waitReady, type ManagedProcess } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin, tool } from '../../support/tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CONTROLLER = 'etcdns-controller';
const INTERNAL = 'etcdns-server-internal';
const EXTERNAL = 'etcdns-server-external';
const PASSWORDS: Record<string, string> = {
  root: 'root-secret',
  controller: 'controller-secret',
  'server-internal': 'internal-secret',
  'server-external': 'external-secret',
};
const USER_PASSWORD: Record<string, string> = {
  root: PASSWORDS.root!,
  [CONTROLLER]: PASSWORDS.controller!,
  [INTERNAL]: PASSWORDS['server-internal']!,
  [EXTERNAL]: PASSWORDS['server-external']!,
};

/** The Job's container arguments for a stack with an internal and an external view. */
function jobArgs(etcd: DnsStackProps['etcd'] = {}): string[] {
  const objects = synthObjects({
    zones: [{ name: 'example.org' }],
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
    etcd,
    etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  }) as Json[];
  const job = objects.find((o) => o.kind === 'Job');
  assert.ok(job, 'the stack renders the roles Job');
  return job.spec.template.spec.containers[0].args as string[];
}

/** One etcd member whose auth tokens expire after a second. */
async function startEtcd(): Promise<{ endpoint: string; process: ManagedProcess }> {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const proc = startProcess('etcd-roles-etcd', tool('etcd'), [
    `--data-dir=${tempDir('etcd-roles')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${await freePort()}`,
    '--auth-token-ttl=1',
    '--logger=zap',
    // Info: its log says when it deletes an expired token.
    '--log-level=info',
  ]);
  await waitReady(proc, 'healthy', () =>
    fetch(`${endpoint}/health`).then(
      (r) => r.ok,
      () => false,
    ),
  );
  return { endpoint, process: proc };
}

let etcd: { endpoint: string; process: ManagedProcess };
let kubeconfigFile: string;
let kube: KubeHandle;
let secrets: string;
/** The Job's arguments, pointed at this etcd and at files holding the Secret's keys. */
let args: string[];
const clients: Etcd3[] = [];

const as = (user?: string) => {
  const client = new Etcd3({
    hosts: etcd.endpoint,
    ...(user ? { auth: { username: user, password: USER_PASSWORD[user]! } } : {}),
  });
  clients.push(client);
  return client;
};

const rolesCommand = (extra: string[] = []) =>
  promisify(execFile)(nodeBin, [etcdnsBin, ...args, ...extra]).then(
    ({ stderr }) => ({ code: 0, stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );

before(async () => {
  [etcd, kube] = await Promise.all([startEtcd(), startKubeApiserver()]);
  kubeconfigFile = await controllerKubeconfig(kube);
  secrets = tempDir('etcd-users');
  for (const [key, password] of Object.entries(PASSWORDS)) writeFileSync(join(secrets, key), `${password}\n`);
  args = jobArgs().map((a) =>
    a.replace('/etc/etcdns/etcd-users', secrets).replace(/^http:\/\/etcdns-etcd:2379$/, etcd.endpoint),
  );
});
after(async () => {
  for (const c of clients) c.close();
  await stopAll();
});

/** etcd-member's membership calls, logged in as `user` with the password file of that Secret key. */
const memberApi = (user: string, key: string) =>
  openCluster({ endpoints: [etcd.endpoint], auth: { username: user, passwordFile: join(secrets, key) } });

test('etcd-member logs in as root from the roles Secret: before authentication is on, it falls back to no login', async () => {
  const api = memberApi('root', 'root');
  try {
    assert.equal((await api.members())?.length, 1);
  } finally {
    api.close();
  }
});

test('the rendered Job arguments create the roles and users and switch authentication on; a second run only sets the passwords again', async () => {
  assert.deepEqual(
    args.filter((a, i) => args[i - 1] === '--grant'),
    [
      `${CONTROLLER}=readwrite:/skydns-external/,readwrite:/skydns/`,
      `${INTERNAL}=read:/skydns/`,
      `${EXTERNAL}=read:/skydns-external/`,
    ],
  );
  const first = await rolesCommand();
  assert.equal(first.code, 0, first.stderr);
  for (const line of [
    `role ${CONTROLLER}: created`,
    `role ${CONTROLLER}: Readwrite on [/skydns/, /skydns0)`,
    `role ${INTERNAL}: Read on [/skydns/, /skydns0)`,
    `role ${EXTERNAL}: Read on [/skydns-external/, /skydns-external0)`,
    `user ${INTERNAL}: created`,
    `user ${INTERNAL}: role ${INTERNAL} granted`,
    'user root: created',
    'authentication enabled',
  ])
    assert.ok(first.stderr.includes(`etcd-roles: ${line}\n`), `${line}\n${first.stderr}`);

  // Anonymous clients are refused now; root manages users.
  await assert.rejects(as().get('/skydns/x').string(), /user name is empty/);
  assert.deepEqual((await as('root').getUsers()).map((u) => u.name).sort(), [CONTROLLER, EXTERNAL, INTERNAL, 'root']);

  const second = await rolesCommand();
  assert.equal(second.code, 0, second.stderr);
  const changes = second.stderr
    .split('\n')
    .filter((l) => /: (created|granted|revoked|Read|Readwrite|authentication)/.test(l));
  assert.deepEqual(changes, [], second.stderr);
  assert.match(second.stderr, new RegExp(`user ${CONTROLLER}: password set`));
});

test("a run puts back what an operator changed: a permission too many, a user's role taken away", async () => {
  const root = as('root');
  await root.role(INTERNAL).grant({ permission: 'Read', range: Range.prefix('/secrets/') });
  await root.user(CONTROLLER).removeRole(CONTROLLER);
  await root.user(CONTROLLER).addRole(INTERNAL);
  const run = await rolesCommand();
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`role ${INTERNAL}: revoked \\[/secrets/, /secrets0\\)`));
  assert.match(run.stderr, new RegExp(`user ${CONTROLLER}: role ${CONTROLLER} granted`));
  assert.match(run.stderr, new RegExp(`user ${CONTROLLER}: role ${INTERNAL} revoked`));
  assert.deepEqual(
    (await root.user(CONTROLLER).roles()).map((r) => r.name),
    [CONTROLLER],
  );
});

test('with authentication on, root may change the membership and a component user may not', async () => {
  const root = memberApi('root', 'root');
  const controller = memberApi(CONTROLLER, 'controller');
  try {
    assert.equal((await root.members())?.length, 1);
    // An unknown member ID: root gets past the permission check to etcd's own answer.
    await assert.rejects(root.remove('12345'), /member not found/);
    await assert.rejects(controller.remove('12345'), EtcdPermissionDeniedError);
  } finally {
    root.close();
    controller.close();
  }
  writeFileSync(join(secrets, 'wrong-root'), 'not-it\n');
  const wrong = memberApi('root', 'wrong-root');
  try {
    // A refused login is an answer: raised, not taken for a cluster that is not there.
    await assert.rejects(wrong.members(), /authentication failed|invalid/i);
  } finally {
    wrong.close();
  }
});

test('a wrong root password fails at once, saying so', async () => {
  const wrong = join(tempDir('wrong-root'), 'root');
  writeFileSync(wrong, 'not-it\n');
  const at = args.indexOf('--root-password-file');
  const saved = args[at + 1]!;
  args[at + 1] = wrong;
  try {
    const run = await rolesCommand(['--timeout', '30']);
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /failed: .*authentication failed/);
    assert.doesNotMatch(run.stderr, /retrying/);
  } finally {
    args[at + 1] = saved;
  }
});

type Op = 'read' | 'write' | 'watch';
async function attempt(client: Etcd3, op: Op, key: string): Promise<'ok' | 'denied'> {
  const denied = (e: unknown) => {
    if (e instanceof EtcdPermissionDeniedError) return 'denied' as const;
    throw e;
  };
  if (op === 'read')
    return client
      .get(key)
      .string()
      .then(() => 'ok' as const, denied);
  if (op === 'write')
    return client
      .put(key)
      .value('{"host":"192.0.2.1"}')
      .then(() => 'ok' as const, denied);
  // A watch is refused when etcd cancels it at creation.
  return client
    .watch()
    .prefix(key)
    .create()
    .then(async (w) => {
      await w.cancel();
      return 'ok' as const;
    }, denied);
}

// user, operation, key, expected: inside the grant works, outside is refused.
const GRANTS: [string, Op, string, 'ok' | 'denied'][] = [
  [INTERNAL, 'read', '/skydns/org/example/www', 'ok'],
  [INTERNAL, 'watch', '/skydns/', 'ok'],
  [INTERNAL, 'write', '/skydns/org/example/www', 'denied'],
  [INTERNAL, 'read', '/skydns-external/org/example/www', 'denied'],
  [INTERNAL, 'watch', '/skydns-external/', 'denied'],
  [INTERNAL, 'read', '/other', 'denied'],
  [EXTERNAL, 'read', '/skydns-external/org/example/www', 'ok'],
  [EXTERNAL, 'watch', '/skydns-external/', 'ok'],
  [EXTERNAL, 'write', '/skydns-external/org/example/www', 'denied'],
  [EXTERNAL, 'read', '/skydns/org/example/www', 'denied'],
  [EXTERNAL, 'watch', '/skydns/', 'denied'],
  [CONTROLLER, 'write', '/skydns/org/example/www', 'ok'],
  [CONTROLLER, 'write', '/skydns-external/org/example/www', 'ok'],
  [CONTROLLER, 'read', '/skydns/org/example/www', 'ok'],
  [CONTROLLER, 'watch', '/skydns/', 'ok'],
  [CONTROLLER, 'write', '/skydns0', 'denied'],
  [CONTROLLER, 'write', '/other', 'denied'],
  [CONTROLLER, 'read', '/other', 'denied'],
  [CONTROLLER, 'watch', '/other/', 'denied'],
  [CONTROLLER, 'write', '/skydnsx/org/example/www', 'denied'],
];
for (const [user, op, key, expected] of GRANTS)
  test(`${user}: ${op} ${key} -> ${expected}`, async () => {
    assert.equal(await attempt(as(user), op, key), expected);
  });

test("etcd's /health stays healthy with authentication on (the StatefulSet's probes)", async () => {
  const res = await fetch(`${etcd.endpoint}/health`);
  assert.deepEqual(await res.json(), { health: 'true' });
});

const auth = (user: string, key: string) => ['--etcd-username', user, '--etcd-password-file', join(secrets, key)];

test('the real controller and server with their own users: published and answered; with the other one refused', async () => {
  await createLoadBalancerService(kube.admin, {
    name: 'shop',
    annotations: { 'external-dns.kubernetes.io/hostname': 'shop.example.org' },
    addresses: [{ ip: '10.9.0.7' }],
  });

  // The controller as a server user may read but not write: the sync fails, nothing is written.
  const refused = await runOnce({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    ownerId: 'roles',
    args: auth(INTERNAL, 'server-internal'),
  });
  assert.notEqual(refused.code, 0, refused.stdout + refused.stderr);
  assert.match(refused.stdout + refused.stderr, /permission denied/);
  assert.equal(await as('root').get('/skydns/org/example/shop').string(), null);

  const published = await runOnce({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    ownerId: 'roles',
    args: auth(CONTROLLER, 'controller'),
  });
  assert.equal(published.code, 0, published.stdout + published.stderr);

  const server = await startEtcdnsServer({
    etcdEndpoints: [etcd.endpoint],
    zones: ['example.org'],
    args: auth(INTERNAL, 'server-internal'),
  });
  try {
    assert.deepEqual(answerData(await dig({ port: server.port, name: 'shop.example.org' }), 'A'), ['10.9.0.7']);
  } finally {
    await server.stop();
  }

  // The external view's server logged in as the internal one: its prefix is refused, it never
  // becomes ready and says why.
  const [port, httpPort] = [await freePort(), await freePort()];
  const wrong = startProcess(
    'etcdns-server-wrong-user',
    nodeBin,
    etcdnsServerArgs(
      {
        etcdEndpoints: [etcd.endpoint],
        zones: ['example.org'],
        prefix: '/skydns-external',
        args: auth(INTERNAL, 'server-internal'),
      },
      port,
      httpPort,
    ),
  );
  try {
    const readyz = await waitFor('the refusal in /readyz', async () => {
      const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`).catch(() => undefined);
      const body = (await res?.text()) ?? '';
      return body.includes('permission denied') ? { status: res!.status, body } : undefined;
    });
    assert.equal(readyz.status, 503, readyz.body);
    assert.equal((await dig({ port, name: 'shop.example.org' })).status, 'SERVFAIL');
  } finally {
    await wrong.stop();
  }
});

test('the controller with the config the constructs render for two views writes both prefixes as its own user', async () => {
  const objects = synthObjects({
    zones: [{ name: 'example.org' }],
    views: [{ name: 'internal' }, { name: 'external', prefix: '/skydns-external', exposure: 'external' }],
    etcdRoles: { passwordSecret: 'etcdns-etcd-users' },
  }) as Json[];
  const rendered = JSON.parse(
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-controller')!.data['config.json'],
  ) as Json;
  assert.equal(rendered.etcd.auth.username, CONTROLLER);
  const config = join(tempDir('controller-config'), 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      ...rendered,
      etcd: { endpoints: [etcd.endpoint], auth: { ...rendered.etcd.auth, passwordFile: join(secrets, 'controller') } },
      httpListen: `127.0.0.1:${await freePort()}`,
    }),
  );
  await createLoadBalancerService(kube.admin, {
    name: 'both',
    annotations: { 'external-dns.kubernetes.io/hostname': 'both.example.org', 'etcdns.io/views': 'internal,external' },
    addresses: [{ ip: '203.0.113.7' }],
  });
  const run = await runOnce({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    ownerId: 'roles',
    args: ['--config', config],
  });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const root = as('root');
  // Each view's record of the name (keys end in a hash of the value), written as etcdns-controller.
  for (const prefix of ['/skydns', '/skydns-external']) {
    const values = Object.values(await root.getAll().prefix(`${prefix}/org/example/both/`).strings());
    assert.equal(values.length, 1, `${prefix}: ${values.join(', ')}`);
    assert.match(values[0]!, /"host":"203\.0\.113\.7"/, prefix);
  }
});

test('a running controller and server outlive their etcd tokens: changes after expiry are written and answered', async () => {
  const controller = await startController({
    kubeconfigFile,
    etcdEndpoints: [etcd.endpoint],
    ownerId: 'long',
    args: ['--prefix', '/skydns-external', ...auth(CONTROLLER, 'controller')],
  });
  const server = await startEtcdnsServer({
    etcdEndpoints: [etcd.endpoint],
    zones: ['example.org'],
    prefix: '/skydns-external',
    args: auth(EXTERNAL, 'server-external'),
  });
  const answer = async (name: string) => answerData(await dig({ port: server.port, name }), 'A');
  const tokensExpire = () => new Promise((r) => setTimeout(r, 2500));
  try {
    await waitFor('shop published and answered', async () =>
      (await answer('shop.example.org')).length > 0 ? true : undefined,
    );
    // From here on only these two processes hold tokens (earlier ones have expired by then).
    let since = '';
    for (const [i, name] of ['late1', 'late2'].entries()) {
      await tokensExpire();
      await createLoadBalancerService(kube.admin, {
        name,
        annotations: { 'external-dns.kubernetes.io/hostname': `${name}.example.org` },
        addresses: [{ ip: `10.9.1.${i + 1}` }],
      });
      const answered = await waitFor(`${name} answered`, async () => {
        const data = await answer(`${name}.example.org`);
        return data.length > 0 ? data : undefined;
      });
      assert.deepEqual(answered, [`10.9.1.${i + 1}`]);
      since ||= new Date().toISOString();
    }
    await tokensExpire();
    await kube.admin.makeApiClient(k8s.CoreV1Api).deleteNamespacedService({ name: 'late1', namespace: 'default' });
    await waitFor('late1 gone', async () =>
      (await dig({ port: server.port, name: 'late1.example.org' })).status === 'NXDOMAIN' ? true : undefined,
    );
    assert.equal((await server.http('/readyz')).status, 200);
    assert.equal((await controller.http('/readyz')).status, 200);
    // The tokens did expire meanwhile, both users': etcd says so.
    const expired = etcd.process
      .logs()
      .split('\n')
      .filter((l) => l.includes('deleted a simple token') && (/"ts":"([^"]+)"/.exec(l)?.[1] ?? '') >= since);
    for (const user of [CONTROLLER, EXTERNAL])
      assert.ok(
        expired.some((l) => l.includes(`"user-name":"${user}"`)),
        `a token of ${user} expired`,
      );
  } finally {
    await server.stop();
    await controller.stop();
  }
});

test("over TLS with client certificates (prod's etcd), root made earlier: the Job's arguments work, root gets the Secret's password, each user logs in with its own, the certificate alone gets nothing", async () => {
  const pki = makeTestPki(tempDir('roles-pki'), 'etcdns');
  const endpoint = `https://127.0.0.1:${await freePort()}`;
  const proc = startProcess('etcd-roles-tls', tool('etcd'), [
    `--data-dir=${tempDir('etcd-roles-tls')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${await freePort()}`,
    `--cert-file=${pki.serverCert}`,
    `--key-file=${pki.serverKey}`,
    '--client-cert-auth',
    `--trusted-ca-file=${pki.caCert}`,
    '--logger=zap',
    '--log-level=warn',
  ]);
  // The client certificate's common name is what etcd takes as the user when no password comes.
  const tlsClient = (user?: string) => {
    const client = new Etcd3({
      hosts: endpoint,
      credentials: {
        rootCertificate: readFileSync(pki.caCert),
        certChain: readFileSync(pki.serverCert),
        privateKey: readFileSync(pki.serverKey),
      },
      ...(user ? { auth: { username: user, password: USER_PASSWORD[user]! } } : {}),
    });
    clients.push(client);
    return client;
  };
  await waitFor('TLS etcd', async () =>
    (await tlsClient()
      .get('probe')
      .string()
      .catch(() => 'no')) === null
      ? true
      : undefined,
  );
  const files: Record<string, string> = {
    '/etc/etcdns/etcd-tls/ca.crt': pki.caCert,
    '/etc/etcdns/etcd-tls/tls.crt': pki.serverCert,
    '/etc/etcdns/etcd-tls/tls.key': pki.serverKey,
  };
  const tlsArgs = jobArgs({ tls: { serverSecret: 'etcd-server', clientSecret: 'etcd-client' } }).map(
    (a) => files[a] ?? a.replace('/etc/etcdns/etcd-users', secrets).replace(/^https:\/\/etcdns-etcd:2379$/, endpoint),
  );
  assert.ok(tlsArgs.includes('--cacert') && tlsArgs.includes('--cert') && tlsArgs.includes('--key'), tlsArgs.join(' '));
  try {
    // An operator made root earlier, with another password: the Job makes it the Secret's.
    await tlsClient().user('root').create('an-older-password');
    const run = await promisify(execFile)(nodeBin, [etcdnsBin, ...tlsArgs]);
    assert.match(run.stderr, /user root: password set\n(.*\n)*.*authentication enabled/);
    assert.deepEqual((await tlsClient('root').getUsers()).map((u) => u.name).sort(), [
      CONTROLLER,
      EXTERNAL,
      INTERNAL,
      'root',
    ]);
    assert.equal(await attempt(tlsClient(INTERNAL), 'read', '/skydns/x'), 'ok');
    assert.equal(await attempt(tlsClient(INTERNAL), 'write', '/skydns/x'), 'denied');
    assert.equal(await attempt(tlsClient(CONTROLLER), 'write', '/skydns/x'), 'ok');
    // The certificate names "etcdns", a user that does not exist: nothing is allowed.
    await assert.rejects(tlsClient().get('/skydns/x').string(), /permission denied/);
    await assert.rejects(tlsClient().put('/skydns/x').value('1').exec(), /permission denied/);
  } finally {
    await proc.stop();
  }
});

test('started before etcd (as the Job is, beside the StatefulSet): it retries until etcd answers, then does its work', async () => {
  const endpoint = `http://127.0.0.1:${await freePort()}`;
  const early = args.map((a) => (a === etcd.endpoint ? endpoint : a));
  const run = promisify(execFile)(nodeBin, [etcdnsBin, ...early, '--timeout', '60']);
  await new Promise((r) => setTimeout(r, 3000));
  const late = startProcess('etcd-roles-late', tool('etcd'), [
    `--data-dir=${tempDir('etcd-roles-late')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${await freePort()}`,
    '--logger=zap',
    '--log-level=warn',
  ]);
  try {
    const { stderr } = await run;
    assert.match(stderr, /etcd not ready \(.*\); retrying\n/);
    assert.match(stderr, /authentication enabled\n/);
  } finally {
    await late.stop();
  }
});
