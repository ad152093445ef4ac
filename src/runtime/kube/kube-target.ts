// Where and as whom a command talks to the API server, found in the order of
// controller-runtime's GetConfig and client-go's loading rules: --kubeconfig FILE; else
// $KUBECONFIG (its files merged, the first to set a value wins; missing ones skipped); else,
// inside a pod, its ServiceAccount; else ~/.kube/config. So a $KUBECONFIG set in a pod is used,
// as every Go controller there would. Kubeconfig settings a controller has no use for
// (auth-provider, basic auth, proxies) fail start-up naming the field, rather than being
// silently ignored.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join } from 'node:path';
import { load } from 'js-yaml';
import { ConfigError } from '../../config/config-error.ts';

export interface ExecPlugin {
  apiVersion: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  /** Shown when the command cannot be run (kubeconfig `installHint`). */
  installHint?: string;
}

/** How requests prove who they are; a client certificate may come on top of any of these. */
export type BearerCredential = { token: string } | { tokenFile: string } | { exec: ExecPlugin };

export interface KubeTarget {
  /** The API server's base URL, such as https://10.0.0.1:6443. */
  server: string;
  /** PEM CA bundle; Node's default roots when absent. */
  ca?: string;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  clientCertificate?: { cert: string; key: string };
  bearer?: BearerCredential;
  /** Where this came from, for log lines and errors. */
  source: string;
}

/** A kubeconfig (or in-cluster setting) the controller cannot use; start-up fails naming it. */
export class KubeTargetError extends ConfigError {}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function loadKubeTarget(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  serviceAccountDir = SERVICE_ACCOUNT_DIR,
): KubeTarget {
  if (file) return fromKubeconfigFiles([file]);
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  // As client-go: only --kubeconfig must exist; missing files in the search list are skipped,
  // and when $KUBECONFIG names none that exists, a pod still uses its ServiceAccount.
  const present = listed.filter((f) => existsSync(f));
  if (present.length > 0) return fromKubeconfigFiles(present);
  if (env.KUBERNETES_SERVICE_HOST) return inCluster(env, serviceAccountDir);
  const candidates = listed.length > 0 ? listed : [join(env.HOME || homedir(), '.kube', 'config')];
  const files = candidates.filter((f) => existsSync(f));
  if (files.length === 0) {
    throw new KubeTargetError(
      `no kubeconfig found (${candidates.join(delimiter)}); pass --kubeconfig, or run in a pod`,
    );
  }
  return fromKubeconfigFiles(files);
}

function inCluster(env: NodeJS.ProcessEnv, dir: string): KubeTarget {
  const host = env.KUBERNETES_SERVICE_HOST!;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!port) throw new KubeTargetError('KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT is not');
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: readText(join(dir, 'ca.crt'), 'the ServiceAccount CA'),
    insecureSkipTlsVerify: false,
    // Re-read as the kubelet rotates it.
    bearer: { tokenFile: join(dir, 'token') },
    source: 'in-cluster ServiceAccount',
  };
}

type Named = { name?: unknown; [k: string]: unknown };
type Section = Record<string, unknown>;

interface Loaded {
  path: string;
  doc: Section;
}

function fromKubeconfigFiles(paths: string[]): KubeTarget {
  const loaded: Loaded[] = paths.map((path) => ({ path, doc: parseKubeconfig(readText(path, 'kubeconfig'), path) }));
  const source = paths.join(delimiter);
  const currentContext = loaded.map((l) => l.doc['current-context']).find((c) => typeof c === 'string' && c !== '');
  if (typeof currentContext !== 'string') throw new KubeTargetError(`${source}: current-context is not set`);
  const context = findNamed(loaded, 'contexts', 'context', currentContext, source);
  const clusterName = stringField(context.entry, 'cluster', `contexts[${currentContext}].context`, context.path);
  const userName = optionalString(context.entry, 'user', `contexts[${currentContext}].context`, context.path);
  const cluster = findNamed(loaded, 'clusters', 'cluster', clusterName, source);
  const user = userName ? findNamed(loaded, 'users', 'user', userName, source) : undefined;

  const where = `clusters[${clusterName}].cluster`;
  const at = (what: string) => `${cluster.path}: ${where}.${what}`;
  const server = stringField(cluster.entry, 'server', where, cluster.path);
  if (!/^https?:\/\//.test(server)) throw new KubeTargetError(`${at('server')}: "${server}" is not an http(s) URL`);
  if (cluster.entry['proxy-url'] !== undefined) throw new KubeTargetError(`${at('proxy-url')} is not supported`);
  const target: KubeTarget = {
    server: server.replace(/\/+$/, ''),
    insecureSkipTlsVerify: cluster.entry['insecure-skip-tls-verify'] === true,
    source,
  };
  const ca = pem(cluster, 'certificate-authority', where);
  if (ca) target.ca = ca;
  const serverName = optionalString(cluster.entry, 'tls-server-name', where, cluster.path);
  if (serverName) target.tlsServerName = serverName;
  if (user) addUser(target, user, userName!);
  return target;
}

function addUser(target: KubeTarget, user: Found, name: string): void {
  const where = `users[${name}].user`;
  for (const unsupported of ['auth-provider', 'username', 'password', 'as', 'as-groups']) {
    if (user.entry[unsupported] !== undefined) {
      throw new KubeTargetError(
        `${user.path}: ${where}.${unsupported} is not supported` +
          (unsupported === 'auth-provider' ? ' (use an exec credential plugin)' : ''),
      );
    }
  }
  const cert = pem(user, 'client-certificate', where);
  const key = pem(user, 'client-key', where);
  if (Boolean(cert) !== Boolean(key)) {
    throw new KubeTargetError(`${user.path}: ${where} needs both client-certificate and client-key, or neither`);
  }
  if (cert && key) target.clientCertificate = { cert, key };
  const token = optionalString(user.entry, 'token', where, user.path);
  const tokenFile = optionalString(user.entry, 'tokenFile', where, user.path);
  if (token) target.bearer = { token };
  else if (tokenFile) target.bearer = { tokenFile: relativeTo(user.path, tokenFile) };
  else if (user.entry.exec !== undefined) target.bearer = { exec: execPlugin(user, `${where}.exec`) };
}

function execPlugin(user: Found, where: string): ExecPlugin {
  const raw = user.entry.exec;
  if (!isSection(raw)) throw new KubeTargetError(`${user.path}: ${where} must be a mapping`);
  const apiVersion = stringField(raw, 'apiVersion', where, user.path);
  if (!/^client\.authentication\.k8s\.io\/(v1|v1beta1)$/.test(apiVersion)) {
    throw new KubeTargetError(`${user.path}: ${where}.apiVersion "${apiVersion}" is not supported (v1 or v1beta1)`);
  }
  let command = stringField(raw, 'command', where, user.path);
  // As kubectl: a command with a path separator is relative to the kubeconfig; a bare name is looked up in PATH.
  if (command.includes('/')) command = relativeTo(user.path, command);
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
    throw new KubeTargetError(`${user.path}: ${where}.args must be a list of strings`);
  }
  const env = raw.env ?? [];
  if (
    !Array.isArray(env) ||
    !env.every((e) => isSection(e) && typeof e.name === 'string' && typeof e.value === 'string')
  ) {
    throw new KubeTargetError(`${user.path}: ${where}.env must be a list of {name, value} strings`);
  }
  const plugin: ExecPlugin = { apiVersion, command, args, env: env as ExecPlugin['env'] };
  if (typeof raw.installHint === 'string') plugin.installHint = raw.installHint;
  return plugin;
}

interface Found {
  path: string;
  entry: Section;
}

/** The first entry named `name` in the `list` of any file (the first file wins, as with kubectl). */
function findNamed(loaded: Loaded[], list: string, field: string, name: string, source: string): Found {
  for (const { path, doc } of loaded) {
    const entries = doc[list];
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries)) throw new KubeTargetError(`${path}: ${list} must be a list`);
    const hit = (entries as Named[]).find((e) => isSection(e) && e.name === name);
    if (!hit) continue;
    const entry = hit[field];
    if (!isSection(entry)) throw new KubeTargetError(`${path}: ${list}[${name}].${field} must be a mapping`);
    return { path, entry };
  }
  throw new KubeTargetError(`${source}: ${list} has no entry named "${name}"`);
}

/** `<field>-data` (base64) or `<field>` (a file, relative to its kubeconfig), as PEM text. */
function pem(found: Found, field: string, where: string): string | undefined {
  const data = optionalString(found.entry, `${field}-data`, where, found.path);
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  const file = optionalString(found.entry, field, where, found.path);
  return file ? readText(relativeTo(found.path, file), `${where}.${field}`) : undefined;
}

function parseKubeconfig(text: string, path: string): Section {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    throw new KubeTargetError(`${path}: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (doc === undefined || doc === null) return {};
  if (!isSection(doc)) throw new KubeTargetError(`${path}: not a kubeconfig (a mapping was expected)`);
  return doc;
}

function stringField(section: Section, field: string, where: string, path: string): string {
  const value = optionalString(section, field, where, path);
  if (!value) throw new KubeTargetError(`${path}: ${where}.${field} is required`);
  return value;
}

function optionalString(section: Section, field: string, where: string, path: string): string | undefined {
  const value = section[field];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new KubeTargetError(`${path}: ${where}.${field} must be a string`);
  return value;
}

function isSection(v: unknown): v is Section {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function relativeTo(kubeconfig: string, file: string): string {
  return isAbsolute(file) ? file : join(dirname(kubeconfig), file);
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeTargetError(`cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}
