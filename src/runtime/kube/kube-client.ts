// The HTTP client for the Kubernetes API (the controller, `etcdns status`, etcd-member, the
// server's drain): JSON requests and watch streams over node:https with the kubeconfig's TLS and
// credentials. It is small on purpose: the generated client of @kubernetes/client-node (whose
// types the sources still use) costs ~80 MiB of memory on import, more than the controller needs
// for 10,000 Services.
import http from 'node:http';
import https from 'node:https';
import { KubeCredentials, type Credentials } from './kube-credentials.ts';
import type { KubeTarget } from './kube-target.ts';

export class KubeApiError extends Error {
  /** The HTTP status, or the `code` of a watch ERROR event's Status. */
  readonly status: number;
  readonly reason: string;

  constructor(status: number, reason: string, message: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** PATCH bodies are JSON merge patches (RFC 7386); every other body is a whole object. */
const contentType = (method: Method) => (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');

const REQUEST_TIMEOUT_MS = 30_000;
const USER_AGENT = 'etcdns-controller';

export class KubeClient {
  private readonly target: KubeTarget;
  private readonly credentials: KubeCredentials;
  private readonly plain: boolean;
  private agent: http.Agent;
  private agentCert: Credentials['clientCertificate'];

  constructor(target: KubeTarget, credentials = new KubeCredentials(target)) {
    this.target = target;
    this.credentials = credentials;
    this.plain = target.server.startsWith('http:');
    this.agent = this.makeAgent(undefined);
  }

  /** A JSON request; rejects with KubeApiError on a status other than 2xx. */
  async request<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const text = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body));
    return JSON.parse(text) as T;
  }

  /** A GET answered with text whatever its status (a pod's /readyz through the API server's proxy). */
  async getText(path: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: number; body: string }> {
    const res = await this.exchange('GET', path, undefined, await this.credentials.get(), timeoutMs, undefined);
    return { status: res.statusCode ?? 0, body: await readBody(res) };
  }

  /**
   * Streams a watch: `onEvent` gets each event in order. Resolves when the server ends the stream
   * (its timeoutSeconds passed); rejects on a transport error, a status other than 200, an ERROR
   * event (as KubeApiError with the Status code, 410 when the resourceVersion is too old), or when
   * `idleMs` pass without a byte.
   */
  async watch<T>(
    path: string,
    onEvent: (event: WatchEvent<T>) => void,
    idleMs: number,
    signal: AbortSignal,
  ): Promise<void> {
    const res = await this.open('GET', path, undefined, idleMs, signal);
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      const fail = (err: Error) => {
        res.destroy();
        reject(err);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (!line.trim()) continue;
          let event: WatchEvent<T>;
          try {
            event = JSON.parse(line) as WatchEvent<T>;
          } catch {
            return fail(new Error(`watch ${path}: undecodable event`));
          }
          if (event.type === 'ERROR') return fail(statusError(path, event.object));
          try {
            onEvent(event);
          } catch (err) {
            return fail(err as Error);
          }
        }
      });
      res.on('end', () => resolve());
      res.on('error', reject);
      res.on('close', () => {
        if (!res.complete) reject(new Error(`watch ${path}: connection closed`));
      });
    });
  }

  private async send(method: Method, path: string, body: string | undefined): Promise<string> {
    return readBody(await this.open(method, path, body, REQUEST_TIMEOUT_MS));
  }

  /** Sends the request and returns the response once its status is 2xx; retries once after a 401. */
  private async open(
    method: Method,
    path: string,
    body: string | undefined,
    timeoutMs: number,
    signal?: AbortSignal,
    retried = false,
  ): Promise<http.IncomingMessage> {
    const creds = await this.credentials.get();
    const res = await this.exchange(method, path, body, creds, timeoutMs, signal);
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return res;
    const text = await readBody(res);
    if (status === 401 && !retried) {
      this.credentials.invalidate();
      return this.open(method, path, body, timeoutMs, signal, true);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { code: status, message: text.slice(0, 200) || http.STATUS_CODES[status] };
    }
    throw statusError(`${method} ${path}`, parsed, status);
  }

  private exchange(
    method: Method,
    path: string,
    body: string | undefined,
    creds: Credentials,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<http.IncomingMessage> {
    if (creds.clientCertificate !== this.agentCert) {
      this.agent.destroy();
      this.agent = this.makeAgent(creds.clientCertificate);
    }
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (creds.authorization) headers.authorization = creds.authorization;
    if (body !== undefined) {
      headers['content-type'] = contentType(method);
      headers['content-length'] = Buffer.byteLength(body);
    }
    const url = new URL(this.target.server + path);
    return new Promise((resolve, reject) => {
      const req = (this.plain ? http : https).request(url, {
        method,
        headers,
        agent: this.agent,
        timeout: timeoutMs,
        ...(signal ? { signal } : {}),
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no data for ${timeoutMs} ms`)));
      req.on('error', reject);
      req.on('response', resolve);
      req.end(body);
    });
  }

  private makeAgent(cert: Credentials['clientCertificate']): http.Agent {
    this.agentCert = cert;
    if (this.plain) return new http.Agent({ keepAlive: true });
    const t = this.target;
    return new https.Agent({
      keepAlive: true,
      rejectUnauthorized: !t.insecureSkipTlsVerify,
      ...(t.ca ? { ca: t.ca } : {}),
      ...(t.tlsServerName ? { servername: t.tlsServerName } : {}),
      ...(cert ? { cert: cert.cert, key: cert.key } : {}),
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

async function readBody(res: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function statusError(context: string, status: unknown, httpStatus?: number): KubeApiError {
  const s = (status ?? {}) as { code?: unknown; reason?: unknown; message?: unknown };
  const code = typeof s.code === 'number' ? s.code : (httpStatus ?? 0);
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const message = typeof s.message === 'string' ? s.message : reason || 'request failed';
  return new KubeApiError(code, reason, `${context}: ${code} ${message}`);
}
