// etcdns as a platform team gets it: packed, installed from the tarball into a fresh project
// outside this repository (peer dependencies at the oldest versions etcdns allows), then used as
// a library from plain Node ESM, CommonJS, ts-node (the `cdk8s init typescript-app` layout) and
// tsx, type-checked by the user's own tsc under every module resolution, and run as a command.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { synthObjects, synthSpokeStack, synthStack } from '../../src/constructs/synth-stack.ts';
import type { DnsStackProps, SpokeStackProps } from '../../src/index.ts';
import { VERSION } from '../../src/version.ts';
import { dig } from '../support/dig.ts';
import { startEtcd } from '../support/etcd.ts';
import { startEtcdnsServer } from '../support/etcdns-server.ts';
import { stopAll } from '../support/process.ts';
import { cleanupTempDirs, tempDir } from '../support/temp-dir.ts';
import { repoRoot } from '../support/tools.ts';
import { installUserProject, oldestAllowed, ownPackage, packInto, run, runOk } from './user-project.ts';

// A custom environment, as a user would write it; every check synthesizes it.
const CUSTOM: DnsStackProps = {
  name: 'corpdns',
  namespace: { name: 'platform-dns' },
  zones: [{ name: 'corp.example', defaultTtl: 60 }],
  etcd: { replicas: 3 },
  server: { replicas: 2 },
};
const expectedFiles = () => Object.fromEntries(synthStack(CUSTOM));
const expectedObjects = () => synthObjects(CUSTOM);

let tarball = '';
let project = '';
const started = performance.now();

before(() => {
  tarball = packInto(tempDir('pack'));
  project = tempDir('user-project');
  installUserProject(project, tarball);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `# pack + install into a fresh project: ${seconds} s (${(statSync(tarball).size / 1024).toFixed(0)} KiB tarball)`,
  );
});
after(async () => {
  await stopAll();
  cleanupTempDirs();
});

/** The packages a declaration file and the declarations it imports (relative, recursively) import. */
function bareImports(entry: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(entry)) return found;
  seen.add(entry);
  for (const [, spec] of readFileSync(entry, 'utf8').matchAll(/(?:from|import\()\s*'([^']+)'/g)) {
    if (!spec!.startsWith('.')) found.add(spec!);
    else for (const p of bareImports(join(entry, '..', spec!.replace(/\.js$/, '.d.ts')), seen)) found.add(p);
  }
  return found;
}

const write = (file: string, text: string) => {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
};

test('the tarball holds the command, the compiled library and its declarations, the dashboard, nothing else', () => {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
  console.log(`# tarball: ${files.length} files, ${(statSync(tarball).size / 1024).toFixed(0)} KiB`);
  const allowed =
    /^package\/(?:package\.json|README\.md|LICENSE|bin\/etcdns\.js|lib\/.+\.(?:js|d\.ts)|lib\/cjs\/package\.json|dashboards\/etcdns\.json)$/;
  assert.deepEqual(
    files.filter((f) => !allowed.test(f)),
    [],
  );
  for (const needed of [
    'lib/index.js',
    'lib/index.d.ts',
    'lib/cjs/index.js',
    'lib/cjs/index.d.ts',
    'lib/runtime/cli.js',
    'dashboards/etcdns.json',
  ])
    assert.ok(files.includes(`package/${needed}`), needed);
  assert.ok(!files.some((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts')), 'no TypeScript sources');
  const declarations = files
    .filter((f) => f.endsWith('.d.ts'))
    .map((f) => readFileSync(join(project, 'node_modules', 'etcdns', f.slice('package/'.length)), 'utf8'));
  assert.ok(
    !declarations.some((d) => /from '\.{1,2}\/[^']*\.ts'/.test(d)),
    'declarations import .js paths, as TypeScript < 5 requires',
  );
  for (const entry of ['lib/index.d.ts', 'lib/cjs/index.d.ts'])
    for (const needed of bareImports(join(project, 'node_modules', 'etcdns', entry)))
      assert.ok(
        needed in ownPackage.peerDependencies || needed in ownPackage.dependencies,
        `${entry} reaches "${needed}", which is neither a peer nor a dependency of etcdns`,
      );
});

test('the peer dependencies are installed once, at the oldest versions the ranges allow', () => {
  for (const peer of ['cdk8s', 'constructs', 'cdk8s-plus-27']) {
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', peer, 'package.json'), 'utf8')) as {
      version: string;
    };
    assert.equal(pkg.version, oldestAllowed(peer), peer);
    assert.ok(!existsSync(join(project, 'node_modules', 'etcdns', 'node_modules', peer)), `no nested copy of ${peer}`);
  }
});

// Node lines the library is tested on: the pinned one, and the machine's own where it is new enough.
const systemNode = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p) && p !== process.execPath);
const NODES = [
  { name: `Node ${process.versions.node} (pinned)`, bin: process.execPath },
  { name: "the machine's Node", bin: systemNode },
];

describe('a plain JavaScript user synthesizes a custom environment', () => {
  const esm = `import { synthStack } from 'etcdns';
const props = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(Object.fromEntries(synthStack(props))));
`;
  const cjs = `const { synthStack } = require('etcdns');
const props = JSON.parse(process.argv[2]);
process.stdout.write(JSON.stringify(Object.fromEntries(synthStack(props))));
`;
  for (const node of NODES) {
    for (const [kind, file, text] of [
      ['ESM import', 'synth.mjs', esm],
      ['CommonJS require', 'synth.cjs', cjs],
    ] as const) {
      test(`${kind} on ${node.name}`, (t) => {
        if (!node.bin) return t.skip('no other Node on this machine');
        write(join(project, file), text);
        const r = runOk(node.bin, [file, JSON.stringify(CUSTOM)], { cwd: project });
        assert.deepEqual(JSON.parse(r.stdout), expectedFiles());
      });
    }
  }
});

test('tsx runs a TypeScript user app', () => {
  write(
    join(project, 'tsx-app.ts'),
    `import { App, Chart } from 'cdk8s';
import { DnsStack, type DnsStackProps } from 'etcdns';
const props: DnsStackProps = JSON.parse(process.argv[2]!);
const chart = new Chart(new App(), 'etcdns', { disableResourceNameHashes: true });
new DnsStack(chart, 'stack', props);
process.stdout.write(JSON.stringify(chart.toJson()));
`,
  );
  const r = runOk(join(project, 'node_modules', '.bin', 'tsx'), ['tsx-app.ts', JSON.stringify(CUSTOM)], {
    cwd: project,
  });
  assert.deepEqual(JSON.parse(r.stdout), expectedObjects());
});

test('ts-node runs the CommonJS project `cdk8s init typescript-app` generates, type-checking it', () => {
  const app = join(project, 'cdk8s-app');
  // The template's package.json has no "type" (CommonJS) and this tsconfig; ts-node compiles to require().
  write(join(app, 'package.json'), '{ "name": "cdk8s-app", "private": true, "main": "main.js", "types": "main.ts" }\n');
  write(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        alwaysStrict: true,
        declaration: true,
        experimentalDecorators: true,
        inlineSourceMap: true,
        inlineSources: true,
        lib: ['es2016'],
        module: 'CommonJS',
        noEmitOnError: true,
        noFallthroughCasesInSwitch: true,
        noImplicitAny: true,
        noImplicitReturns: true,
        noImplicitThis: true,
        noUnusedLocals: true,
        noUnusedParameters: true,
        resolveJsonModule: true,
        strict: true,
        strictNullChecks: true,
        strictPropertyInitialization: true,
        stripInternal: true,
        target: 'ES2017',
        types: ['node'],
      },
      include: ['**/*.ts'],
      exclude: ['node_modules'],
    }),
  );
  write(
    join(app, 'main.ts'),
    `import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';
import { DnsStack, DnsStackProps } from 'etcdns';

class DnsChart extends Chart {
  constructor(scope: Construct, id: string, props: DnsStackProps) {
    super(scope, id, { disableResourceNameHashes: true });
    new DnsStack(this, 'stack', props);
  }
}
const chart = new DnsChart(new App(), 'etcdns', JSON.parse(process.argv[2]!));
process.stdout.write(JSON.stringify(chart.toJson()));
`,
  );
  const r = runOk(join(project, 'node_modules', '.bin', 'ts-node'), ['main.ts', JSON.stringify(CUSTOM)], { cwd: app });
  assert.deepEqual(JSON.parse(r.stdout), expectedObjects());
});

describe("the user's tsc (strict) finds etcdns's types under every module resolution", () => {
  const ROWS = [
    { module: 'nodenext', moduleResolution: 'nodenext', type: 'module' },
    { module: 'nodenext', moduleResolution: 'nodenext', type: 'commonjs' },
    { module: 'node16', moduleResolution: 'node16', type: 'module' },
    { module: 'node16', moduleResolution: 'node16', type: 'commonjs' },
    { module: 'commonjs', moduleResolution: 'node10', type: 'commonjs' },
    { module: 'esnext', moduleResolution: 'bundler', type: 'module' },
    { module: 'preserve', moduleResolution: 'bundler', type: 'module' },
  ] as const;
  const source = `import { App, Chart } from 'cdk8s';
import { DnsStack, type DnsStackProps } from 'etcdns';
export const props: DnsStackProps = { zones: [{ name: 'corp.example' }], etcd: { replicas: 3 } };
new DnsStack(new Chart(new App(), 'etcdns'), 'stack', props);
`;
  const tsc = () => join(project, 'node_modules', '.bin', 'tsc');
  const check = (dir: string, row: (typeof ROWS)[number], main: string) => {
    write(join(dir, 'package.json'), JSON.stringify({ name: 'tsc-check', private: true, type: row.type }));
    write(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: row.module,
          moduleResolution: row.moduleResolution,
          strict: true,
          noEmit: true,
          target: 'es2022',
          types: [],
        },
        files: ['main.ts'],
      }),
    );
    write(join(dir, 'main.ts'), main);
    return run(tsc(), ['-p', dir], { cwd: dir });
  };
  for (const row of ROWS) {
    test(`module ${row.module}, moduleResolution ${row.moduleResolution}, a ${row.type} project: 0 errors`, () => {
      const r = check(join(project, `tsc-${row.module}-${row.moduleResolution}-${row.type}`), row, source);
      assert.equal(r.status, 0, r.stdout);
    });
  }
  test('a wrong prop type is a type error naming the prop', () => {
    const wrong = source.replace('etcd: { replicas: 3 }', "etcd: { replicas: 'three' }");
    const r = check(join(project, 'tsc-wrong-prop'), ROWS[0], wrong);
    assert.notEqual(r.status, 0);
    assert.match(r.stdout, /main\.ts\(3,.*error TS2322: Type 'string' is not assignable to type 'number'/);
  });
});

describe('the etcdns command runs from the install', () => {
  const etcdns = () => join(project, 'node_modules', '.bin', 'etcdns');
  for (const node of NODES) {
    for (const [args, expected] of [
      [['--help'], /^Usage: etcdns <command>/],
      [['version'], new RegExp(`^etcdns ${VERSION.replaceAll('.', '\\.')}\n$`)],
      [['server', '--help'], /^Usage: etcdns server /],
      [['controller', '--help'], /^Usage: etcdns controller/],
      [['plan', '--help'], /^Usage: etcdns plan/],
      [['init', '--help'], /^Usage: etcdns init DIR/],
    ] as const) {
      test(`etcdns ${args.join(' ')} on ${node.name}`, (t) => {
        if (!node.bin) return t.skip('no other Node on this machine');
        const r = runOk(node.bin, [join(project, 'node_modules', 'etcdns', 'bin', 'etcdns.js'), ...args], {
          cwd: project,
        });
        assert.match(r.stdout, expected);
      });
    }
  }
  test('npx etcdns --help', () => {
    assert.match(
      runOk('npx', ['--no-install', 'etcdns', '--help'], { cwd: project }).stdout,
      /^Usage: etcdns <command>/,
    );
  });
  test('etcdns plan without a cluster fails with one line naming what is missing, no stack trace', () => {
    const r = run(
      etcdns(),
      [
        'plan',
        '--etcd',
        'http://127.0.0.1:1',
        '--owner-id',
        'corp',
        '--kubeconfig',
        join(project, 'missing-kubeconfig'),
      ],
      { cwd: project },
    );
    assert.notEqual(r.status, 0);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
    assert.match(r.stderr, /missing-kubeconfig/);
  });
});

test('etcdns server from the install answers from a real etcd', async () => {
  const etcd = await startEtcd();
  await etcd.client().put('/skydns/example/corp/www').value('{"host":"192.0.2.7"}');
  const server = await startEtcdnsServer({
    etcdEndpoints: [etcd.endpoint],
    zones: ['corp.example'],
    bin: join(project, 'node_modules', 'etcdns', 'bin', 'etcdns.js'),
  });
  const answer = await dig({ server: '127.0.0.1', port: server.port, name: 'www.corp.example', type: 'A' });
  assert.equal(answer.status, 'NOERROR');
  assert.deepEqual(
    answer.answer.map((r) => r.data),
    ['192.0.2.7'],
  );
  await server.stop();
  await etcd.stop();
});

test('npm install of the tarball into an empty directory brings the peers and a working command', () => {
  const empty = tempDir('empty-install');
  runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: empty });
  for (const peer of ['cdk8s', 'constructs', 'cdk8s-plus-27'])
    assert.ok(existsSync(join(empty, 'node_modules', peer)), peer);
  assert.match(runOk('npx', ['--no-install', 'etcdns', 'version'], { cwd: empty }).stdout, /^etcdns /);
  const r = runOk(
    process.execPath,
    ['--input-type=module', '-e', "import { DnsStack } from 'etcdns'; console.log(typeof DnsStack)"],
    { cwd: empty },
  );
  assert.equal(r.stdout, 'function\n');
});

describe('etcdns init scaffolds a GitOps repository that installs and synthesizes as it is', () => {
  let repo = '';
  before(() => {
    repo = join(tempDir('init'), 'dns-gitops');
    runOk(join(project, 'node_modules', '.bin', 'etcdns'), ['init', repo, '--etcdns', `file:${tarball}`], {
      cwd: project,
    });
    const t0 = performance.now();
    runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: repo });
    const installed = performance.now();
    runOk('npm', ['run', 'synth'], { cwd: repo });
    console.log(
      `# init repo: npm install ${((installed - t0) / 1000).toFixed(1)} s, npm run synth ${((performance.now() - installed) / 1000).toFixed(1)} s`,
    );
  });

  test('npm run synth writes dist/<env>/ equal to what the same props give in-process', async () => {
    const { environments } = (await import(join(repo, 'environments', 'index.ts'))) as {
      environments: Record<string, DnsStackProps>;
    };
    assert.deepEqual(Object.keys(environments).sort(), ['dev', 'prod']);
    for (const [env, props] of Object.entries(environments)) {
      const expected = synthStack(props);
      assert.deepEqual(readdirSync(join(repo, 'dist', env)).sort(), [...expected.keys()].sort(), env);
      for (const [file, text] of expected)
        assert.equal(readFileSync(join(repo, 'dist', env, file), 'utf8'), text, `${env}/${file}`);
      assert.ok(expected.has('kustomization.yaml'));
    }
  });

  test('the real `cdk8s synth` honours cdk8s.yaml: same files under its output folder', () => {
    const out = 'cdk8s.out';
    writeFileSync(
      join(repo, 'cdk8s.yaml'),
      readFileSync(join(repo, 'cdk8s.yaml'), 'utf8').replace('output: dist', `output: ${out}`),
    );
    runOk(join(repoRoot, 'node_modules', '.bin', 'cdk8s'), ['synth'], { cwd: repo });
    for (const env of ['dev', 'prod'])
      for (const file of readdirSync(join(repo, 'dist', env)))
        assert.equal(
          readFileSync(join(repo, out, env, file), 'utf8'),
          readFileSync(join(repo, 'dist', env, file), 'utf8'),
          `${env}/${file}`,
        );
  });

  test('the scaffold type-checks under its own strict tsconfig', () => {
    runOk('npm', ['run', 'typecheck'], { cwd: repo });
  });

  test('the Argo CD Applications and Flux Kustomizations point at the dist folders', () => {
    for (const env of ['dev', 'prod']) {
      assert.match(
        readFileSync(join(repo, 'gitops', 'argocd', `${env}.yaml`), 'utf8'),
        new RegExp(`\n    path: dist/${env}\n`),
      );
      assert.match(
        readFileSync(join(repo, 'gitops', 'flux', `${env}.yaml`), 'utf8'),
        new RegExp(`\n  path: \\./dist/${env}\n`),
      );
    }
  });

  test('a second init into the same directory writes nothing and names the files in the way', () => {
    const before = readFileSync(join(repo, 'main.ts'), 'utf8');
    const r = run(join(project, 'node_modules', '.bin', 'etcdns'), ['init', repo], { cwd: project });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /already has package\.json, .*main\.ts/);
    assert.equal(readFileSync(join(repo, 'main.ts'), 'utf8'), before);
  });
});

describe('etcdns init --hub --spoke scaffolds a hub and its spokes that install and synthesize as they are', () => {
  let repo = '';
  before(() => {
    repo = join(tempDir('init-hub'), 'dns-hub');
    const args = ['init', repo, '--hub', 'hub', '--spoke', 'dc1', '--spoke', 'dc-2', '--etcdns', `file:${tarball}`];
    runOk(join(project, 'node_modules', '.bin', 'etcdns'), args, { cwd: project });
    runOk('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: repo });
    runOk('npm', ['run', 'synth'], { cwd: repo });
  });

  test('npm run synth writes dist/hub/ and dist/spoke-<cluster>/ equal to what the same props give in-process', async () => {
    const { environments, spokes } = (await import(join(repo, 'environments', 'index.ts'))) as {
      environments: Record<string, DnsStackProps>;
      spokes: Record<string, SpokeStackProps>;
    };
    assert.deepEqual(Object.keys(environments), ['hub']);
    assert.deepEqual(Object.keys(spokes), ['spoke-dc1', 'spoke-dc-2']);
    const expected = [
      ...Object.entries(environments).map(([env, props]) => [env, synthStack(props)] as const),
      ...Object.entries(spokes).map(([env, props]) => [env, synthSpokeStack(props)] as const),
    ];
    for (const [env, files] of expected) {
      assert.deepEqual(readdirSync(join(repo, 'dist', env)).sort(), [...files.keys()].sort(), env);
      for (const [file, text] of files)
        assert.equal(readFileSync(join(repo, 'dist', env, file), 'utf8'), text, `${env}/${file}`);
    }
    const hubFiles = [...expected.find(([env]) => env === 'hub')![1].values()].join('\n');
    for (const cluster of ['dc1', 'dc-2'])
      assert.ok(hubFiles.includes(`cluster-${cluster}`), `etcd user of ${cluster}`);
  });

  test('the scaffold type-checks under its own strict tsconfig', () => {
    runOk('npm', ['run', 'typecheck'], { cwd: repo });
  });
});
