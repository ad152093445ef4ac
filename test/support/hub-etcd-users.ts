// A hub's etcd users, as `etcdns etcd-roles` makes them (issue 34): a user per member cluster,
// readwrite on its own prefix only (as the constructs grant), the hub's server user reading its
// view's prefix and the clusters', then authentication on. For tests running a real etcd with TLS.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3 } from 'etcd3';
import type { TestPki } from './certificates.ts';
import { etcdCredentials, etcdLoginArgs, type EtcdHandle } from './etcd.ts';
import { tempDir } from './temp-dir.ts';
import { etcdnsBin, nodeBin } from './tools.ts';

export interface HubEtcdUsers {
  /** etcd as root. */
  root: Etcd3;
  /** TLS and login flags for `etcdns controller` and `etcdns server` as `user` ("cluster-dc1", "server-hub"). */
  asUser(user: string): string[];
  /** An etcd client logged in as `user` (close it). */
  client(user: string): Etcd3;
}

export async function enableHubAuth(
  etcd: EtcdHandle,
  pki: TestPki,
  clusters: readonly string[],
): Promise<HubEtcdUsers> {
  const dir = tempDir('hub-users');
  const users = [...clusters.map((c) => `cluster-${c}`), 'server-hub'];
  const passwords: Record<string, string> = {};
  for (const user of ['root', ...users]) {
    passwords[user] = join(dir, user);
    writeFileSync(passwords[user], `${user}-secret\n`);
  }
  await promisify(execFile)(nodeBin, [
    etcdnsBin,
    'etcd-roles',
    '--endpoints',
    etcd.endpoint,
    '--cacert',
    pki.caCert,
    '--cert',
    pki.serverCert,
    '--key',
    pki.serverKey,
    '--root-password-file',
    passwords.root!,
    ...clusters.flatMap((c) => ['--grant', `cluster-${c}=readwrite:/skydns-clusters/${c}/`]),
    '--grant',
    'server-hub=read:/skydns/,read:/skydns-clusters/,readwrite:/etcdns-hub/',
    ...users.flatMap((u) => ['--user', `${u}=${passwords[u]}`]),
    '--enable-auth',
  ]);
  const client = (user: string) =>
    new Etcd3({
      hosts: etcd.endpoint,
      credentials: etcdCredentials(pki),
      auth: { username: user, password: `${user}-secret` },
    });
  return {
    root: client('root'),
    client,
    asUser: (user) => etcdLoginArgs(pki, user, passwords[user]!),
  };
}
