// `etcdns etcd-member` (src/runtime/etcd-member/): the plan for each situation, etcd's flags as
// its config file, and for real against a 3-member etcd on loopback: a new member joins through
// member add and starts from the written config file; the same member with its data directory
// wiped (a lost volume) is removed and added again and rejoins under a new ID; with its data it
// just restarts; with no cluster answering, a bootstrap member bootstraps and any other waits.
// `etcdns etcd-member leave`, the real command against that etcd and a real API server: on
// SIGTERM it removes its member only when the StatefulSet was scaled below it.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { load } from 'js-yaml';
import { etcdConfig } from '../../../src/runtime/etcd-member/etcd-config.ts';
import * as k8s from '@kubernetes/client-node';
import { parseEtcdMemberArgs } from '../../../src/runtime/etcd-member/etcd-member-command.ts';
import { planLeave, type LeavePlan } from '../../../src/runtime/etcd-member/leave-plan.ts';
import { planMember, type ClusterMember } from '../../../src/runtime/etcd-member/member-plan.ts';
import { openCluster } from '../../../src/runtime/etcd-member/member-api.ts';
import { prepareMember, type PrepareOptions } from '../../../src/runtime/etcd-member/prepare-member.ts';
import { startEtcdCluster, type EtcdHandle } from '../../support/etcd.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitReady, type ManagedProcess } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin, tool } from '../../support/tools.ts';

const bootstrap = new Map([
  ['e-0', 'http://e-0:2380'],
  ['e-1', 'http://e-1:2380'],
]);
const member = (id: string, name: string, peer: string, started = true): ClusterMember => ({
  id,
  name,
  peerUrls: [peer],
  clientUrls: started ? [peer.replace('2380', '2379')] : [],
});

describe('etcd-member plan', () => {
  const base = { name: 'e-1', peerUrl: 'http://e-1:2380', bootstrap };
  test('data present: restart', () => {
    assert.deepEqual(planMember({ ...base, hasData: true, members: [] }), { action: 'restart' });
  });
  test('no cluster answers: bootstrap members bootstrap, others wait', () => {
    assert.deepEqual(planMember({ ...base, hasData: false, members: undefined }), {
      action: 'bootstrap',
      initialCluster: 'e-0=http://e-0:2380,e-1=http://e-1:2380',
    });
    const extra = planMember({ ...base, name: 'e-5', peerUrl: 'http://e-5:2380', hasData: false, members: undefined });
    assert.equal(extra.action, 'wait');
  });
  test('a cluster answers: join, replace a lost member, start a listed member that never ran', () => {
    const others = [member('1', 'e-0', 'http://e-0:2380')];
    assert.equal(planMember({ ...base, hasData: false, members: others }).action, 'join');
    const lost = planMember({ ...base, hasData: false, members: [...others, member('2', 'e-1', 'http://e-1:2380')] });
    assert.deepEqual(
      { action: lost.action, removeId: 'removeId' in lost && lost.removeId },
      { action: 'join', removeId: '2' },
    );
    const slow = planMember({
      ...base,
      hasData: false,
      members: [...others, member('2', '', 'http://e-1:2380', false)],
    });
    assert.equal(
      slow.action,
      'bootstrap',
      'a bootstrap member the others started without joins with the static cluster',
    );
  });
});

describe('leave plan', () => {
  const members = [member('10', 'e-0', 'http://e-0:2380'), member('13', 'e-3', 'http://e-3:2380')];
  const rows: [string, { name: string; replicas: number | undefined }, LeavePlan['action'], RegExp][] = [
    ['scaled below the pod: leave', { name: 'e-3', replicas: 3 }, 'remove', /at or above replicas 3/],
    ['the last ordinal kept: stay', { name: 'e-3', replicas: 4 }, 'stay', /a restart/],
    ['a low ordinal in a scale-down: stay', { name: 'e-0', replicas: 3 }, 'stay', /below replicas/],
    ['scaled to zero: a pause, stay', { name: 'e-3', replicas: 0 }, 'stay', /scaled to zero/],
    ['the StatefulSet deleted: stay', { name: 'e-3', replicas: undefined }, 'stay', /is gone/],
    ['no longer a member: nothing to remove', { name: 'e-5', replicas: 3 }, 'stay', /not a member/],
    ['a pod of another StatefulSet: stay', { name: 'other-3', replicas: 3 }, 'stay', /not a pod of/],
    ['not an ordinal: stay', { name: 'e-03', replicas: 3 }, 'stay', /not a pod of/],
  ];
  for (const [title, situation, action, reason] of rows)
    test(title, () => {
      const plan = planLeave({ ...situation, statefulSet: 'e', members });
      assert.equal(plan.action, action);
      assert.match(plan.reason, reason);
      if (plan.action === 'remove') assert.equal(plan.id, '13');
    });
});

describe('etcd-member arguments', () => {
  const prepare = ['--name=e-0', '--peer-url=http://e-0:2380', '--data-dir=/d', '--endpoints=http://e:2379'];
  const rows: [string, string[], RegExp][] = [
    [
      'both bootstrap sources',
      [...prepare, '--config-out=/c', '--initial-cluster=a=b', '--initial-cluster-file=/f'],
      /one of/,
    ],
    ['no bootstrap source', [...prepare, '--config-out=/c'], /one of/],
    [
      'a user without a password file',
      [...prepare, '--initial-cluster=a=b', '--config-out=/c', '--user=root'],
      /go together/,
    ],
    [
      'leave without its StatefulSet',
      ['leave', '--name=e-3', '--namespace=n', '--endpoints=http://e:2379'],
      /--statefulset/,
    ],
    [
      'a bad timeout',
      ['leave', '--name=e', '--statefulset=e', '--namespace=n', '--endpoints=x', '--timeout=-1'],
      /--timeout/,
    ],
  ];
  for (const [title, args, error] of rows) test(title, () => assert.throws(() => parseEtcdMemberArgs(args), error));
  test('prepare: etcd flags after --, the initial cluster from a file, login', () => {
    const parsed = parseEtcdMemberArgs([
      ...prepare,
      '--initial-cluster-file=/etc/members/initial-cluster',
      '--config-out=/run/etcd.yaml',
      '--user=root',
      '--password-file=/p',
      '--',
      '--name=e-0',
    ]);
    assert.ok(parsed !== 'help' && parsed.role === 'prepare');
    assert.deepEqual(parsed.options.initialCluster, { file: '/etc/members/initial-cluster' });
    assert.deepEqual(parsed.options.auth, { username: 'root', passwordFile: '/p' });
    assert.deepEqual(parsed.options.etcdFlags, ['--name=e-0']);
    assert.equal(parsed.options.timeoutMs, 300_000);
  });
});

describe('etcd flags as its config file', () => {
  test('TLS flags go to the transport sections; booleans and numbers are typed; overrides win', () => {
    const config = etcdConfig(
      [
        '--name=e-0',
        '--data-dir=/var/lib/etcd/data',
        '--client-cert-auth=true',
        '--cert-file=/tls/server/tls.crt',
        '--peer-trusted-ca-file=/tls/peer/ca.crt',
        '--quota-backend-bytes=2147483648',
        '--auto-compaction-retention=1h',
        '--initial-cluster-state=new',
      ],
      { 'initial-cluster-state': 'existing' },
    );
    assert.deepEqual(config, {
      name: 'e-0',
      'data-dir': '/var/lib/etcd/data',
      'client-transport-security': { 'client-cert-auth': true, 'cert-file': '/tls/server/tls.crt' },
      'peer-transport-security': { 'trusted-ca-file': '/tls/peer/ca.crt' },
      'quota-backend-bytes': 2147483648,
      'auto-compaction-retention': '1h',
      'initial-cluster-state': 'existing',
    });
  });
});

describe('etcd-member against a real 3-member etcd', { timeout: 180_000 }, () => {
  let etcd: EtcdHandle;
  let kube: KubeHandle | undefined;
  let extra: ManagedProcess | undefined;
  after(async () => {
    await extra?.stop();
    await kube?.stop();
    await etcd?.stop();
    await stopAll();
  });

  const memberList = async () => {
    const list = await etcd.client().cluster.memberList({});
    return list.members.map((m) => ({ id: m.ID, name: m.name })).sort((a, b) => a.name.localeCompare(b.name));
  };

  test('join, lost volume, restart; bootstrap and wait with no cluster', async () => {
    etcd = await startEtcdCluster(3);
    const dir = tempDir('etcd-member');
    const clientUrl = `http://127.0.0.1:${await freePort()}`;
    const peerUrl = `http://127.0.0.1:${await freePort()}`;
    const dataDir = join(dir, 'data');
    const configOut = join(dir, 'etcd.yaml');
    const options: PrepareOptions = {
      name: 'etcd-3',
      peerUrl,
      dataDir,
      initialCluster: { value: etcd.members.map((m) => `${m.name}=${m.peerUrl}`).join(',') },
      endpoints: etcd.endpoints,
      configOut,
      timeoutMs: 60_000,
      etcdFlags: [
        '--name=etcd-3',
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${clientUrl}`,
        `--advertise-client-urls=${clientUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        '--initial-cluster-state=new',
        '--log-level=warn',
        '--logger=zap',
      ],
    };
    const startExtra = async () => {
      extra = startProcess('etcd-3', tool('etcd'), ['--config-file', configOut]);
      await waitReady(extra, 'healthy', async () => {
        const r = await fetch(`${clientUrl}/health`, { signal: AbortSignal.timeout(1000) });
        return r.ok && ((await r.json()) as { health?: string }).health === 'true';
      });
    };

    // A new member: member add, then etcd from the written config joins.
    assert.equal((await prepareMember(options)).plan.action, 'join');
    const written = load(readFileSync(configOut, 'utf8')) as Record<string, string>;
    assert.equal(written['initial-cluster-state'], 'existing');
    assert.equal(written['initial-cluster']!.split(',').length, 4);
    await startExtra();
    const four = await memberList();
    assert.deepEqual(
      four.map((m) => m.name),
      ['etcd-0', 'etcd-1', 'etcd-2', 'etcd-3'],
    );
    const firstId = four.find((m) => m.name === 'etcd-3')!.id;

    // Its data kept: restart.
    await extra!.stop();
    assert.equal((await prepareMember(options)).plan.action, 'restart');
    await startExtra();

    // Its volume lost: the old entry is removed, a new one added, and it rejoins as a new member.
    await extra!.stop();
    rmSync(dataDir, { recursive: true, force: true });
    const outcome = await prepareMember(options);
    assert.equal(outcome.plan.action, 'join');
    assert.equal(outcome.removed, firstId, 'the lost member was removed');
    await startExtra();
    const again = await memberList();
    assert.deepEqual(
      again.map((m) => m.name),
      ['etcd-0', 'etcd-1', 'etcd-2', 'etcd-3'],
    );
    assert.notEqual(again.find((m) => m.name === 'etcd-3')!.id, firstId, 'a new member ID');

    // No cluster answering: a bootstrap member bootstraps the static cluster, another waits.
    const nowhere = [`http://127.0.0.1:${await freePort()}`];
    const lone = { ...options, endpoints: nowhere, dataDir: join(dir, 'empty'), timeoutMs: 1 };
    assert.equal(
      (await prepareMember({ ...lone, name: 'etcd-0', peerUrl: etcd.members[0]!.peerUrl })).plan.action,
      'bootstrap',
    );
    assert.equal((load(readFileSync(configOut, 'utf8')) as Record<string, string>)['initial-cluster-state'], 'new');
    await assert.rejects(prepareMember(lone), /not in the bootstrap cluster/);
  });

  test('leave: on SIGTERM the member goes only when the StatefulSet was scaled below it', async () => {
    // etcd-3, the member the test above added, stands for the fourth pod of StatefulSet "etcd".
    kube = await startKubeApiserver();
    const apps = kube.admin.makeApiClient(k8s.AppsV1Api);
    const labels = { app: 'etcd' };
    await apps.createNamespacedStatefulSet({
      namespace: 'default',
      body: {
        metadata: { name: 'etcd' },
        spec: {
          replicas: 4,
          serviceName: 'etcd-peer',
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: 'etcd', image: 'etcd:test' }] } },
        },
      },
    });
    const runLeave = async (endpoints = etcd.endpoints) => {
      const sidecar = startProcess('etcd-member-leave', nodeBin, [
        etcdnsBin,
        'etcd-member',
        'leave',
        '--name=etcd-3',
        '--statefulset=etcd',
        '--namespace=default',
        `--endpoints=${endpoints.join(',')}`,
        `--kubeconfig=${kube!.kubeconfigFile}`,
      ]);
      await waitReady(sidecar, 'waiting', async () => sidecar.logs().includes('waiting for termination'));
      await sidecar.stop(25_000);
      return sidecar.logs();
    };
    const scale = (replicas: number) =>
      apps.patchNamespacedStatefulSetScale(
        { name: 'etcd', namespace: 'default', body: { spec: { replicas } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );

    // A restart or a roll (replicas still 4): it stays.
    assert.match(await runLeave(), /leave: stay: ordinal 3 is below replicas 4/);
    assert.ok((await memberList()).some((m) => m.name === 'etcd-3'));
    // The same with no member answering (one member, whose etcd has stopped before the sidecar, or
    // every pod going at once): the StatefulSet decides, at the first try.
    const alone = await runLeave([`http://127.0.0.1:${await freePort()}`]);
    assert.match(alone, /leave: stay: ordinal 3 is below replicas 4/);
    assert.doesNotMatch(alone, /not yet/);

    // Scaled to 3: it removes itself; the other three keep serving.
    await scale(3);
    const out = await runLeave();
    assert.match(out, /leave: removed member \d+ \(etcd-3\)/);
    assert.deepEqual(
      (await memberList()).map((m) => m.name),
      ['etcd-0', 'etcd-1', 'etcd-2'],
    );
    await etcd.client().put('/after-leave').value('ok');
  });
});

describe('etcd-member against a cluster that stops answering', () => {
  let frozen: EtcdHandle | undefined;
  after(async () => {
    frozen?.members[0]!.process?.kill('SIGCONT');
    await frozen?.stop();
  });

  test('member add gives up at its deadline instead of waiting for ever (a retry plans again)', async () => {
    frozen = await startEtcdCluster(1);
    const api = openCluster({ endpoints: frozen.endpoints }, 3000);
    try {
      assert.ok(await api.members(), 'the member list while it answers');
      // Frozen, not gone: the connection stays open and the request is taken, never answered.
      frozen.members[0]!.process!.kill('SIGSTOP');
      const asked = Date.now();
      await assert.rejects(api.add('http://127.0.0.1:1'), /deadline/i);
      const took = Date.now() - asked;
      assert.ok(took >= 2500 && took < 10_000, `gave up after ${took} ms`);
    } finally {
      api.close();
    }
  });
});
