// The runtime image, for real: `npm run image` (scripts/image.sh: buildah builds the Dockerfile
// on a base assembled from this machine), then podman runs it as the manifests run it (user
// 65532, read-only root file system, a tmpfs /tmp, no capabilities, no privilege escalation):
// `etcdns server` answers dig from a real etcd on the host's loopback, `etcdns controller --help`
// runs, and the image holds the command and its production dependencies only.
// Skipped, naming the error, only where buildah or podman cannot run at all.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import ts from 'typescript';
import { NONROOT_IDENTITY } from '../../src/constructs/base/workload.ts';
import { answerData, dig } from '../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../support/etcd.ts';
import { freePort } from '../support/ports.ts';
import { startProcess, stopAll, waitFor, waitReady, type ManagedProcess } from '../support/process.ts';
import { podmanUnavailable, restrictedRunArgs } from '../support/podman.ts';
import { repoRoot } from '../support/tools.ts';

const run = promisify(execFile);
const { version, dependencies: ownDependencies } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
};
const IMAGE = `localhost/etcdns:${version}`;
const MB = 1e6;
/** The user and group the manifests run the image as, and the image's own USER. */
const USER = `${NONROOT_IDENTITY.runAsUser}:${NONROOT_IDENTITY.runAsGroup}`;

/** `podman run` as DnsServer and DnsController run the image, with a tmpfs /tmp as their emptyDir. */
async function podmanRun(): Promise<string[]> {
  return [...(await restrictedRunArgs(USER)), '--rm', '--mount', 'type=tmpfs,destination=/tmp'];
}

/** Runs a throwaway container to completion. */
async function runInImage(args: string[], entrypoint?: string): Promise<{ stdout: string; stderr: string }> {
  const cmd = [...(await podmanRun()), ...(entrypoint ? ['--entrypoint', entrypoint] : []), IMAGE, ...args];
  return run('podman', cmd, { timeout: 60_000, maxBuffer: 16 * MB });
}

/** Files under `dir`, relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => lstatSync(join(dir, f)).isFile());
}

/** Bytes of the files under `dir`. */
function bytes(dir: string): number {
  return walk(dir).reduce((n, f) => n + lstatSync(join(dir, f)).size, 0);
}

/** The relative and package imports of a compiled module (static and `import('...')`). */
function importsOf(text: string): string[] {
  // TypeScript's scanner, not a regex: the scaffold's templates hold import lines that are text.
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => !spec.startsWith('node:'));
}

/**
 * What the image's /app holds: the modules `etcdns` can load, followed from lib/runtime/cli.js,
 * and every other file. Read from the image itself (`podman image mount`, no container).
 */
async function inspectApp() {
  const { stdout } = await run('podman', ['image', 'mount', IMAGE]);
  const app = join(stdout.trim(), 'app');
  try {
    const code = [...walk(join(app, 'bin')).map((f) => `bin/${f}`), ...walk(join(app, 'lib')).map((f) => `lib/${f}`)];
    const reachable = new Set<string>();
    const missing: string[] = [];
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (reachable.has(file)) return;
      if (!existsSync(join(app, file))) return void missing.push(file);
      reachable.add(file);
      for (const spec of importsOf(readFileSync(join(app, file), 'utf8'))) {
        if (spec.startsWith('.')) visit(posix.join(posix.dirname(file), spec));
        else
          packages.add(
            spec
              .split('/')
              .slice(0, spec.startsWith('@') ? 2 : 1)
              .join('/'),
          );
      }
    };
    visit('lib/runtime/cli.js');
    // Modules of types only compile to an empty `export {}`: dead weight of a few bytes, harmless.
    const typeOnly = (f: string) =>
      /^(?:export \{\};)?$/.test(
        readFileSync(join(app, f), 'utf8')
          .replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')
          .trim(),
      );
    return {
      entries: readdirSync(app).sort(),
      code,
      missing,
      packages: [...packages].sort(),
      /** The package names in node_modules, scoped ones as @scope/name. */
      installed: readdirSync(join(app, 'node_modules'))
        .flatMap((n) => (n.startsWith('@') ? readdirSync(join(app, 'node_modules', n)).map((s) => `${n}/${s}`) : [n]))
        .filter((n) => existsSync(join(app, 'node_modules', n, 'package.json'))),
      unreachable: code.filter((f) => f.startsWith('lib/') && !reachable.has(f) && !typeOnly(f)),
      // The Dockerfile installs node_modules once, on the build platform, for every target
      // platform: right only while no package builds or ships a native addon.
      nativeAddons: walk(join(app, 'node_modules')).filter((f) => /(\.node|binding\.gyp)$/.test(f)),
      appBytes: bytes(app),
      nodeModulesBytes: bytes(join(app, 'node_modules')),
    };
  } finally {
    await run('podman', ['image', 'unmount', IMAGE]);
  }
}

const skip = await podmanUnavailable();

describe('the runtime image', { skip }, () => {
  let etcd: EtcdHandle;
  const containers: string[] = [];

  before(async () => {
    // Cold: a few tens of seconds (base, npm ci, tsc); warm: seconds. Its output shows on failure.
    const built = await run('bash', [join(repoRoot, 'scripts', 'image.sh')], {
      cwd: repoRoot,
      timeout: 10 * 60_000,
      maxBuffer: 16 * MB,
    }).catch((e: { stderr?: string; message: string }) => {
      throw new Error(`npm run image failed: ${e.message}\n${e.stderr ?? ''}`);
    });
    assert.equal(built.stdout.trim(), IMAGE, 'scripts/image.sh prints the tag it built');
    etcd = await startEtcd();
  });

  after(async () => {
    // By name, whatever state the test left them in; then any podman client still running.
    for (const name of containers) await run('podman', ['rm', '--force', '--time', '2', name]).catch(() => {});
    await stopAll();
    await etcd?.stop();
  });

  test('the image config: numeric non-root user, the etcdns entrypoint', async (t) => {
    const { stdout } = await run('podman', [
      'image',
      'inspect',
      '--format',
      '{{.Config.User}}|{{json .Config.Entrypoint}}|{{.Size}}',
      IMAGE,
    ]);
    const [user, entrypoint, size] = stdout.trim().split('|');
    assert.equal(user, USER);
    assert.deepEqual(JSON.parse(entrypoint!), ['node', 'bin/etcdns.js']);
    t.diagnostic(`${IMAGE}: ${(Number(size) / MB).toFixed(1)} MB`);
  });

  test('etcdns server in the container answers dig from the etcd on the host', async () => {
    const client = etcd.client();
    // One record before the server starts (its first full load), one after (its watch).
    await client.put('/skydns/org/example/image/before').value(JSON.stringify({ host: '192.0.2.10' }));
    const port = await freePort();
    const httpPort = await freePort();
    const name = `etcdns-image-test-${process.pid}`;
    containers.push(name);
    const server: ManagedProcess = startProcess('etcdns-image-server', 'podman', [
      ...(await podmanRun()),
      '--name',
      name,
      IMAGE,
      'server',
      '--etcd',
      etcd.endpoint,
      '--zone',
      'example.org',
      '--listen',
      `127.0.0.1:${port}`,
      '--http-listen',
      `127.0.0.1:${httpPort}`,
    ]);
    await waitReady(server, 'ready', async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`, { signal: AbortSignal.timeout(1000) });
        return res.status === 200;
      } catch {
        return false;
      }
    });

    const loaded = await dig({ port, name: 'before.image.example.org' });
    assert.equal(loaded.status, 'NOERROR', loaded.raw);
    assert.ok(loaded.flags.includes('aa'), loaded.raw);
    assert.deepEqual(answerData(loaded, 'A'), ['192.0.2.10']);

    await client.put('/skydns/org/example/image/after').value(JSON.stringify({ host: '192.0.2.11' }));
    const watched = await waitFor('the watched record', async () => {
      const r = await dig({ port, name: 'after.image.example.org', tcp: true });
      return answerData(r, 'A').length > 0 ? r : undefined;
    });
    assert.deepEqual(answerData(watched, 'A'), ['192.0.2.11']);
    assert.equal((await dig({ port, name: 'absent.image.example.org' })).status, 'NXDOMAIN');

    // podman forwards SIGTERM to the container; the server exits cleanly and --rm removes it.
    await server.stop(10_000);
    assert.equal(await server.exited, 0, server.logs());
  });

  test('etcdns controller --help runs in the container', async () => {
    const { stdout } = await runInImage(['controller', '--help']);
    assert.match(stdout, /^Usage: etcdns controller /);
  });

  test('the image holds the command and its production dependencies only', async (t) => {
    const found = await inspectApp();
    assert.deepEqual(found.entries, ['bin', 'lib', 'node_modules', 'package.json']);
    assert.deepEqual(
      found.code.filter((f) => /\.[cm]?ts$/.test(f)),
      [],
      'no TypeScript sources or declarations beside the compiled JavaScript',
    );
    for (const devOrPeer of ['cdk8s', 'cdk8s-plus-27', 'constructs', 'typescript', '@kubernetes/client-node', 'eslint'])
      assert.ok(!found.installed.includes(devOrPeer), `${devOrPeer} is not in the image's node_modules`);
    assert.deepEqual(found.missing, [], 'every module the command can load is in the image');
    assert.deepEqual(found.packages, Object.keys(ownDependencies).sort(), 'the packages the command imports');
    for (const p of found.packages) assert.ok(found.installed.includes(p), `${p} is installed in the image`);
    assert.deepEqual(found.nativeAddons, [], 'plain JavaScript packages only (the deps stage is platform-free)');
    assert.deepEqual(found.unreachable, [], 'no compiled module the command never loads (the constructs library)');
    // What the image adds to its Node base: today ~14 MB of node_modules and ~0.3 MB of lib/.
    // Dev or peer dependencies would add 100+ MB.
    assert.ok(found.appBytes < 30 * MB, `/app is ${(found.appBytes / MB).toFixed(1)} MB`);
    t.diagnostic(
      `/app: ${(found.appBytes / MB).toFixed(1)} MB, of which node_modules ${(found.nodeModulesBytes / MB).toFixed(1)} MB`,
    );
  });
});
