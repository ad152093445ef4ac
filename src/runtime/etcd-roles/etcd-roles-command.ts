// `etcdns etcd-roles`: gives etcd the roles and users of a stack (a Job, or by hand), so that each
// component logs in as a user that may touch only its own key prefixes. Idempotent: every run
// makes the roles' permissions and the users' roles exactly the given ones and sets the users'
// passwords from their files again; with --enable-auth it creates root (from its password file)
// if missing and switches authentication on. Users and roles it is not given are left alone.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  Etcd3,
  EtcdAuthenticationFailedError,
  EtcdPermissionDeniedError,
  GRPCFailedPreconditionError,
  Range,
} from 'etcd3';
import { createEtcdClient } from '../shared/etcd-client.ts';
import type { Subcommand } from '../shared/subcommand.ts';
import {
  desiredRoles,
  parseGrant,
  parseUser,
  roleSteps,
  userSteps,
  type Permission,
  type PermissionType,
  type RoleSpec,
  type RoleStep,
  type UserStep,
} from './role-plan.ts';

export const USAGE = `Usage: etcdns etcd-roles --endpoints URL,... --root-password-file FILE
       --grant NAME=ACCESS:PREFIX[,ACCESS:PREFIX...]... --user NAME=PASSWORD_FILE...
       [--cacert F [--cert F --key F]] [--enable-auth] [--timeout SECONDS]

Makes etcd's roles and users exactly what is given (roles and users not named are left alone):
  --grant ROLE=read:/skydns/,...   the role's permissions: read or readwrite on every key under
                                   each prefix (etcdctl role grant-permission --prefix); repeatable
  --user NAME=FILE                 a user holding exactly the role NAME, its password read from
                                   FILE (set again on every run); repeatable

Options:
  --endpoints LIST          etcd client URLs
  --root-password-file FILE root's password: etcd-roles logs in as root once authentication is on
  --cacert, --cert, --key   TLS files for the client connection (etcd's client-cert auth)
  --enable-auth             create root (with the root role) if missing and switch authentication on
  --timeout SECONDS         keep retrying an unreachable etcd this long (default 300)
`;

export interface EtcdRolesOptions {
  endpoints: string[];
  rootPasswordFile: string;
  tls?: { caFile: string; certFile?: string; keyFile?: string };
  roles: RoleSpec[];
  users: { name: string; passwordFile: string }[];
  enableAuth: boolean;
  timeoutMs: number;
}

export function parseEtcdRolesArgs(args: string[]): EtcdRolesOptions | 'help' {
  const { values } = parseArgs({
    args,
    options: {
      endpoints: { type: 'string' },
      'root-password-file': { type: 'string' },
      cacert: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      grant: { type: 'string', multiple: true },
      user: { type: 'string', multiple: true },
      'enable-auth': { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const missing = (['endpoints', 'root-password-file', 'grant'] as const).filter((k) => !values[k]);
  if (missing.length) throw new Error(`missing ${missing.map((k) => `--${k}`).join(', ')}`);
  if (!values.cert !== !values.key) throw new Error('--cert and --key: give both or neither');
  const timeout = Number(values.timeout ?? 300);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new Error('--timeout: a positive number of seconds');
  const users = (values.user ?? []).map(parseUser);
  return {
    endpoints: values.endpoints!.split(',').filter(Boolean),
    rootPasswordFile: values['root-password-file']!,
    ...(values.cacert ? { tls: { caFile: values.cacert, certFile: values.cert, keyFile: values.key } } : {}),
    roles: desiredRoles(values.grant!.map(parseGrant), users),
    users,
    enableAuth: values['enable-auth'] === true,
    timeoutMs: timeout * 1000,
  };
}

const log = (msg: string) => process.stderr.write(`etcd-roles: ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const readPassword = (file: string) => readFileSync(file, 'utf8').replace(/\r?\n$/, '');
const CALL_MS = 5000;

const clientOf = (o: EtcdRolesOptions, auth?: { username: string; password: string }) =>
  createEtcdClient({ endpoints: o.endpoints, tls: o.tls, auth }, { dialTimeout: CALL_MS });

/**
 * A client allowed to manage users: root once authentication is on; before that anyone is
 * (etcd says "authentication is not enabled" to a login), so no credentials.
 */
async function adminClient(o: EtcdRolesOptions, rootPassword: string): Promise<{ client: Etcd3; authOn: boolean }> {
  const root = clientOf(o, { username: 'root', password: rootPassword });
  try {
    await root.getUsers();
    return { client: root, authOn: true };
  } catch (e) {
    root.close();
    if (!(e instanceof GRPCFailedPreconditionError && /authentication is not enabled/.test(e.message))) throw e;
  }
  return { client: clientOf(o), authOn: false };
}

const describeRange = (p: { key: string; rangeEnd: string }) => `[${p.key}, ${p.rangeEnd})`;

function describe(step: RoleStep | UserStep): string {
  switch (step.action) {
    case 'create-role':
      return `role ${step.role}: created`;
    case 'grant':
      return `role ${step.role}: ${step.permission.type} on ${describeRange(step.permission)}`;
    case 'revoke':
      return `role ${step.role}: revoked ${describeRange(step)}`;
    case 'create-user':
      return `user ${step.user}: created`;
    case 'set-password':
      return `user ${step.user}: password set`;
    case 'add-role':
      return `user ${step.user}: role ${step.role} granted`;
    case 'remove-role':
      return `user ${step.user}: role ${step.role} revoked`;
  }
}

/** One pass: roles, then users, then (if asked) root and authentication. */
export async function applyRoles(o: EtcdRolesOptions): Promise<string[]> {
  const rootPassword = readPassword(o.rootPasswordFile);
  const passwords = new Map(o.users.map((u) => [u.name, readPassword(u.passwordFile)]));
  const done: string[] = [];
  const { client, authOn } = await adminClient(o, rootPassword);
  try {
    const roleNames = new Set((await client.getRoles()).map((r) => r.name));
    for (const role of o.roles) {
      const current = roleNames.has(role.name)
        ? (await client.role(role.name).permissions()).map((p): Permission => ({
            type: p.permission as PermissionType,
            key: p.range.start.toString(),
            rangeEnd: p.range.end.toString(),
          }))
        : undefined;
      for (const step of roleSteps(role, current)) {
        const r = client.role(step.role);
        if (step.action === 'create-role') await r.create();
        else if (step.action === 'grant')
          await r.grant({
            permission: step.permission.type,
            range: new Range(step.permission.key, step.permission.rangeEnd),
          });
        else await r.revoke({ permission: 'Readwrite', range: new Range(step.key, step.rangeEnd) });
        done.push(describe(step));
      }
    }
    const userNames = new Set((await client.getUsers()).map((u) => u.name));
    for (const { name } of o.users) {
      const current = userNames.has(name) ? (await client.user(name).roles()).map((r) => r.name) : undefined;
      for (const step of userSteps(name, current)) {
        const u = client.user(step.user);
        if (step.action === 'create-user') await u.create(passwords.get(name)!);
        else if (step.action === 'set-password') await u.setPassword(passwords.get(name)!);
        else if (step.action === 'add-role') await u.addRole(step.role);
        else await u.removeRole(step.role);
        done.push(describe(step));
      }
    }
    if (o.enableAuth && !authOn) {
      // etcd enables authentication only with a root user holding the root role.
      if (!(await client.getRoles()).some((r) => r.name === 'root')) await client.role('root').create();
      // Root's password becomes the Secret's, so that later runs can log in.
      if (!userNames.has('root')) {
        await client.user('root').create(rootPassword);
        done.push('user root: created');
      } else {
        await client.user('root').setPassword(rootPassword);
        done.push('user root: password set');
      }
      if (!(await client.user('root').roles()).some((r) => r.name === 'root'))
        await client.user('root').addRole('root');
      await client.auth.authEnable();
      done.push('authentication enabled');
    }
    return done;
  } finally {
    client.close();
  }
}

/** Refusals that waiting does not cure: a wrong root password, a root without the root role. */
const fatal = (e: unknown) => e instanceof EtcdAuthenticationFailedError || e instanceof EtcdPermissionDeniedError;

async function run(args: string[]): Promise<number> {
  let options: EtcdRolesOptions | 'help';
  try {
    options = parseEtcdRolesArgs(args);
  } catch (e) {
    process.stderr.write(`etcdns etcd-roles: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      const done = await applyRoles(options);
      for (const line of done) log(line);
      log(`done: ${options.roles.length} role(s), ${options.users.length} user(s)`);
      return 0;
    } catch (e) {
      const message = (e as Error).message;
      if (fatal(e) || Date.now() > deadline || (e as NodeJS.ErrnoException).code === 'ENOENT') {
        log(`failed: ${message}`);
        return 1;
      }
      log(`etcd not ready (${message}); retrying`);
      await sleep(2000);
    }
  }
}

export default { run } satisfies Subcommand;
