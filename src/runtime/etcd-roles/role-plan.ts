// What `etcdns etcd-roles` makes true in etcd, and the steps from what etcd has: roles whose
// permissions are exactly the granted key prefixes, users holding exactly the role of their own
// name. Pure: the command reads etcd's state and carries out the steps.

export type Access = 'read' | 'readwrite';

/** etcd's permission type names (the etcd3 client's). */
export type PermissionType = 'Read' | 'Write' | 'Readwrite';

/** One permission of a role on a key range [key, rangeEnd). */
export interface Permission {
  type: PermissionType;
  key: string;
  rangeEnd: string;
}

export interface RoleSpec {
  name: string;
  permissions: Permission[];
}

export interface UserSpec {
  /** The user, who holds exactly the role of the same name. */
  name: string;
  passwordFile: string;
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;
const ACCESS: Record<Access, PermissionType> = { read: 'Read', readwrite: 'Readwrite' };

/**
 * The key range of every key starting with `prefix`: [prefix, prefix with its last byte
 * incremented), as `etcdctl role grant-permission --prefix` grants it.
 */
export function prefixRange(prefix: string): { key: string; rangeEnd: string } {
  const last = prefix.charCodeAt(prefix.length - 1);
  if (prefix.length === 0 || last >= 0x7f) throw new Error(`${JSON.stringify(prefix)}: not a usable key prefix`);
  return { key: prefix, rangeEnd: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** `NAME=ACCESS:PREFIX[,ACCESS:PREFIX...]`, e.g. `etcdns-server-internal=read:/skydns/`. */
export function parseGrant(spec: string): RoleSpec {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq);
  if (eq < 0 || !NAME.test(name))
    throw new Error(
      `--grant ${JSON.stringify(spec)}: must be NAME=ACCESS:PREFIX[,...] with a role name of 1-64 letters, digits, ".", "_" or "-"`,
    );
  const permissions = spec
    .slice(eq + 1)
    .split(',')
    .map((part) => {
      const colon = part.indexOf(':');
      const access = part.slice(0, colon) as Access;
      const prefix = part.slice(colon + 1);
      if (colon < 0 || !(access in ACCESS) || !prefix.startsWith('/') || !prefix.endsWith('/'))
        throw new Error(
          `--grant ${JSON.stringify(spec)}: ${JSON.stringify(part)} must be read:/PREFIX/ or readwrite:/PREFIX/`,
        );
      return { type: ACCESS[access], ...prefixRange(prefix) };
    });
  return { name, permissions };
}

/** `NAME=PASSWORD_FILE`. */
export function parseUser(spec: string): UserSpec {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq);
  const passwordFile = spec.slice(eq + 1);
  if (eq < 0 || !NAME.test(name) || passwordFile === '')
    throw new Error(`--user ${JSON.stringify(spec)}: must be NAME=PASSWORD_FILE`);
  return { name, passwordFile };
}

/** Roles by name (repeated --grant flags of one role add up); every user needs its role. */
export function desiredRoles(grants: RoleSpec[], users: UserSpec[]): RoleSpec[] {
  const roles = new Map<string, Permission[]>();
  for (const g of grants) roles.set(g.name, [...(roles.get(g.name) ?? []), ...g.permissions]);
  for (const u of users)
    if (!roles.has(u.name)) throw new Error(`--user ${u.name}: no --grant ${u.name}=... gives its role permissions`);
  if (roles.has('root')) throw new Error("--grant root: the root role is etcd's own; grant other roles");
  return [...roles].map(([name, permissions]) => ({ name, permissions }));
}

export type RoleStep =
  | { action: 'create-role'; role: string }
  | { action: 'grant'; role: string; permission: Permission }
  | { action: 'revoke'; role: string; key: string; rangeEnd: string };

/**
 * The steps that give `role` exactly the wanted permissions. A grant on a range the role already
 * has replaces its type in etcd, so only ranges no longer wanted are revoked.
 */
export function roleSteps(role: RoleSpec, current: Permission[] | undefined): RoleStep[] {
  const range = (p: { key: string; rangeEnd: string }) => `${p.key}\0${p.rangeEnd}`;
  const steps: RoleStep[] = current === undefined ? [{ action: 'create-role', role: role.name }] : [];
  const have = new Map((current ?? []).map((p) => [range(p), p.type]));
  const want = new Set(role.permissions.map(range));
  for (const p of role.permissions)
    if (have.get(range(p)) !== p.type) steps.push({ action: 'grant', role: role.name, permission: p });
  for (const p of current ?? [])
    if (!want.has(range(p))) steps.push({ action: 'revoke', role: role.name, key: p.key, rangeEnd: p.rangeEnd });
  return steps;
}

export type UserStep =
  | { action: 'create-user'; user: string }
  | { action: 'set-password'; user: string }
  | { action: 'add-role'; user: string; role: string }
  | { action: 'remove-role'; user: string; role: string };

/**
 * The steps that leave `user` with its password (set again every run, so a changed Secret
 * applies) and exactly the role of its name. `current` is its roles, undefined when it is new.
 */
export function userSteps(user: string, current: string[] | undefined): UserStep[] {
  if (current === undefined)
    return [
      { action: 'create-user', user },
      { action: 'add-role', user, role: user },
    ];
  return [
    { action: 'set-password', user },
    ...(current.includes(user) ? [] : [{ action: 'add-role' as const, user, role: user }]),
    ...current.filter((r) => r !== user).map((role) => ({ action: 'remove-role' as const, user, role })),
  ];
}
