// The credentials a request carries, kept fresh: a token file is re-read at most once a minute
// (the kubelet rotates ServiceAccount tokens in place), an exec plugin is run again shortly before
// its credential expires, and either is refreshed at once after the API server answered 401.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { ExecPlugin, KubeTarget } from './kube-target.ts';

export interface Credentials {
  authorization?: string;
  clientCertificate?: { cert: string; key: string };
}

const TOKEN_FILE_MAX_AGE_MS = 60_000;
const EXPIRY_MARGIN_MS = 10_000;
const EXEC_TIMEOUT_MS = 60_000;

export type ExecRunner = (plugin: ExecPlugin, execInfo: string) => Promise<string>;

export class KubeCredentials {
  private readonly target: KubeTarget;
  private readonly runExec: ExecRunner;
  private cached: Credentials | undefined;
  private validUntil = 0;
  private pending: Promise<Credentials> | undefined;

  constructor(target: KubeTarget, runExec: ExecRunner = runExecPlugin) {
    this.target = target;
    this.runExec = runExec;
  }

  get(): Promise<Credentials> {
    if (this.cached && Date.now() < this.validUntil) return Promise.resolve(this.cached);
    // One refresh at a time, however many requests ask during it.
    this.pending ??= this.refresh().finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** The API server refused them: fetch new ones on the next request. */
  invalidate(): void {
    this.validUntil = 0;
  }

  private async refresh(): Promise<Credentials> {
    const { bearer, clientCertificate } = this.target;
    const creds: Credentials = clientCertificate ? { clientCertificate } : {};
    let validUntil = Infinity;
    if (bearer && 'token' in bearer) creds.authorization = `Bearer ${bearer.token}`;
    else if (bearer && 'tokenFile' in bearer) {
      const token = (await readFile(bearer.tokenFile, 'utf8')).trim();
      if (!token) throw new Error(`token file ${bearer.tokenFile} is empty`);
      creds.authorization = `Bearer ${token}`;
      validUntil = Date.now() + TOKEN_FILE_MAX_AGE_MS;
    } else if (bearer && 'exec' in bearer) {
      const issued = parseExecCredential(
        await this.runExec(bearer.exec, execInfo(bearer.exec.apiVersion)),
        bearer.exec,
      );
      if (issued.token) creds.authorization = `Bearer ${issued.token}`;
      if (issued.clientCertificate) creds.clientCertificate = issued.clientCertificate;
      if (issued.expiresAt !== undefined) validUntil = issued.expiresAt - EXPIRY_MARGIN_MS;
    }
    this.cached = creds;
    this.validUntil = validUntil;
    return creds;
  }
}

function execInfo(apiVersion: string): string {
  return JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false } });
}

export interface IssuedCredential {
  token?: string;
  clientCertificate?: { cert: string; key: string };
  expiresAt?: number;
}

/** Reads an ExecCredential as the client-go credential plugin protocol defines it. */
export function parseExecCredential(stdout: string, plugin: ExecPlugin): IssuedCredential {
  const fail = (why: string) => new Error(`exec plugin ${plugin.command}: ${why}`);
  let doc: {
    apiVersion?: unknown;
    kind?: unknown;
    status?: {
      token?: unknown;
      clientCertificateData?: unknown;
      clientKeyData?: unknown;
      expirationTimestamp?: unknown;
    };
  };
  try {
    doc = JSON.parse(stdout) as typeof doc;
  } catch {
    throw fail('did not print an ExecCredential (invalid JSON)');
  }
  if (doc?.kind !== 'ExecCredential') throw fail(`printed kind ${JSON.stringify(doc?.kind)}, not ExecCredential`);
  if (doc.apiVersion !== plugin.apiVersion) {
    throw fail(
      `printed apiVersion ${JSON.stringify(doc.apiVersion)}, but the kubeconfig asks for ${plugin.apiVersion}`,
    );
  }
  const s = doc.status ?? {};
  const issued: IssuedCredential = {};
  if (typeof s.token === 'string' && s.token) issued.token = s.token;
  if (typeof s.clientCertificateData === 'string' && typeof s.clientKeyData === 'string') {
    issued.clientCertificate = { cert: s.clientCertificateData, key: s.clientKeyData };
  }
  if (!issued.token && !issued.clientCertificate) throw fail('gave neither status.token nor a client certificate');
  if (s.expirationTimestamp !== undefined) {
    const at = Date.parse(String(s.expirationTimestamp));
    if (Number.isNaN(at))
      throw fail(`status.expirationTimestamp ${JSON.stringify(s.expirationTimestamp)} is not a time`);
    issued.expiresAt = at;
  }
  return issued;
}

function runExecPlugin(plugin: ExecPlugin, info: string): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: info };
  for (const { name, value } of plugin.env) env[name] = value;
  return new Promise((resolve, reject) => {
    execFile(plugin.command, plugin.args, { env, timeout: EXEC_TIMEOUT_MS }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const hint = plugin.installHint ? ` (${plugin.installHint.trim()})` : '';
      reject(new Error(`exec plugin ${plugin.command} failed: ${stderr.trim() || err.message}${hint}`));
    });
  });
}
