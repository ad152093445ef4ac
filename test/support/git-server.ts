// A Git server on loopback for a GitOps engine to read from: git's own `git http-backend` (smart
// HTTP, read-only: GIT_HTTP_EXPORT_ALL) behind a small CGI gateway on node:http, run as its own
// process (a test's synchronous calls would otherwise stall the engine's fetches). Tests push
// into the bare repositories through the file system; engines clone and fetch over HTTP.
//   startGitServer() -> { url(repo), bareRepo(repo), stop() }
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { nodeBin } from './tools.ts';

export interface GitServer {
  /** http://127.0.0.1:PORT/<repo>.git */
  url(repo: string): string;
  /** Creates (once) and returns the bare repository `<repo>.git` the server serves. */
  bareRepo(repo: string): string;
  /** Every request the server answered so far: "METHOD path status", one a line. */
  logs(): string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

export async function startGitServer(): Promise<GitServer> {
  const root = tempDir('git-root');
  const port = await freePort();
  const p = startProcess('git-http', nodeBin, [fileURLToPath(import.meta.url), String(port), root]);
  const url = (repo: string) => `http://127.0.0.1:${port}/${repo}.git`;
  await waitReady(p, 'listening', async () => /listening/.test(p.logs()), 10_000);
  return {
    url,
    bareRepo(repo) {
      const dir = join(root, `${repo}.git`);
      mkdirSync(dir, { recursive: true });
      const r = spawnSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', dir], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`git init --bare ${dir}: ${r.stderr}`);
      return dir;
    },
    logs: () => p.logs(),
    process: p,
    stop: () => p.stop(),
  };
}

/** The gateway itself (RFC 3875 CGI to `git http-backend`): `node git-server.ts PORT ROOT`. */
function serve(port: number, root: string): void {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const child = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GATEWAY_INTERFACE: 'CGI/1.1',
        REQUEST_METHOD: req.method,
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let status = 200;
    let headersSent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      const endLf = head.indexOf('\n\n');
      const [at, sep] = end >= 0 && (endLf < 0 || end < endLf) ? [end, 4] : [endLf, 2];
      if (at < 0) return;
      for (const line of head.subarray(0, at).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      headersSent = true;
      res.write(head.subarray(at + sep));
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => {
      if (!headersSent) res.writeHead(502).end(stderr);
      else res.end();
      console.log(`${req.method} ${url.pathname}${url.search} ${status}${code ? ` (exit ${code}) ${stderr}` : ''}`);
    });
  });
  server.listen(port, '127.0.0.1', () => console.log(`listening on 127.0.0.1:${port}, serving ${root}`));
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) serve(Number(process.argv[2]), process.argv[3]!);
