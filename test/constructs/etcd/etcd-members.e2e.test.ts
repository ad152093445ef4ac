// The synthesized etcd members, run by the real etcd and `etcdns etcd-member` from the
// StatefulSet's own arguments: the init container bootstraps each member and writes etcd's config
// file, etcd starts from it. Only what differs between a pod and loopback is moved: host names
// resolve to 127.0.0.1, each member gets its own ports, $(POD_NAME) is filled in as Kubernetes
// does, and each volume's mount path points at a folder (a Secret's keys, a ConfigMap's keys, the
// member's own data and emptyDir).
//  - 3 members started at once (Parallel) form a cluster; the endpoints EtcdCluster exposes
//    reach it; with one member lost the others stay ready (the PDB's quorum), with quorum lost the
//    survivor turns unready (and stays live with etcd >= 3.5);
//  - prod: client and peer TLS with client-certificate auth, and the DNS server pod, from its
//    ConfigMap and mounts, reads records through it with its client certificate.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Etcd3 } from 'etcd3';
import type { DnsStackProps } from '../../../src/constructs/dns-stack.ts';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { ENVIRONMENTS } from '../../../src/environments/index.ts';
import { makeTestPki } from '../../support/certificates.ts';
import { dig } from '../../support/dig.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor, waitReady, type ManagedProcess } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { etcdnsBin, nodeBin, tool } from '../../support/tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
after(stopAll);

const PORT_NAMES: Record<string, 'client' | 'peer' | 'metrics'> = {
  '2379': 'client',
  '2380': 'peer',
  '2381': 'metrics',
};

/** Runs the members of a synthesized stack on loopback; `secrets` holds each Secret's folder. */
async function runMembers(objects: Json[], secrets: Map<string, string>) {
  const statefulSet = objects.find((o) => o.kind === 'StatefulSet')!;
  const pod = statefulSet.spec.template.spec;
  const container = pod.containers[0];
  const init = (pod.initContainers as Json[])[0]!;
  assert.deepEqual(container.command, ['etcd']);
  assert.equal(init.name, 'etcd-member');
  assert.equal(statefulSet.spec.podManagementPolicy, 'Parallel');
  const members = Array.from(
    { length: statefulSet.spec.replicas as number },
    (_, i) => `${statefulSet.metadata.name}-${i}`,
  );
  const ports = new Map<string, Record<'client' | 'peer' | 'metrics', number>>();
  for (const m of members)
    ports.set(m, { client: await freePort(), peer: await freePort(), metrics: await freePort() });
  const hostPort = (member: string, port: string) => `127.0.0.1:${ports.get(member)![PORT_NAMES[port]!]}`;
  const configMaps = new Map(
    objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name as string, o.data as Json]),
  );
  const localizeUrls = (arg: string, member: string) =>
    arg
      .replaceAll('$(POD_NAME)', member)
      // Namespace-relative names only: a member through the peer Service, and the client
      // Service, which routes to a ready member (here the first).
      .replace(/(?<=:\/\/)([a-z0-9-]+)\.[a-z0-9-]+-etcd-peer:(\d+)/g, (_, host: string, port: string) =>
        hostPort(host, port),
      )
      .replace(/(?<=:\/\/)[a-z0-9-]+-etcd:(2379)/g, (_, port: string) => hostPort(members[0]!, port))
      .replace(/(?<=:\/\/)0\.0\.0\.0:(\d+)/g, (_, port: string) => hostPort(member, port));
  // Each member's own emptyDir and data folders; Secrets and ConfigMaps (their URLs moved) are shared.
  const memberMounts = new Map(
    members.map((m) => [m, mountedVolumes(pod, secrets, configMaps, tempDir(m), (v) => localizeUrls(v, m))]),
  );
  const localize = (arg: string, member: string) => {
    let local = localizeUrls(arg, member);
    for (const [mountPath, dir] of memberMounts.get(member) ?? memberMounts.get(members[0]!)!)
      local = local.replaceAll(`=${mountPath}/`, `=${dir}/`);
    return local;
  };
  const probe = async (member: string, kind: 'livenessProbe' | 'readinessProbe') => {
    assert.equal(container[kind].httpGet.port, 'metrics');
    const url = `http://${hostPort(member, '2381')}${container[kind].httpGet.path}`;
    try {
      return (await fetch(url, { signal: AbortSignal.timeout(5000) })).status;
    } catch {
      return 0;
    }
  };
  // The init container first, all members at once: with no cluster answering, each bootstraps
  // the static cluster from the ConfigMap and writes etcd's config file.
  const helpers = members.map((m) =>
    startProcess(`${m}-etcd-member`, nodeBin, [etcdnsBin, ...(init.args as string[]).map((a) => localize(a, m))]),
  );
  for (const h of helpers) assert.equal(await h.exited, 0, h.logs());
  const procs = new Map<string, ManagedProcess>();
  for (const m of members)
    procs.set(
      m,
      startProcess(
        m,
        tool('etcd'),
        (container.args as string[]).map((a) => localize(a, m)),
      ),
    );
  for (const m of members)
    await waitReady(
      procs.get(m)!,
      'ready (readiness probe)',
      async () => (await probe(m, 'readinessProbe')) === 200,
      60_000,
    );
  return { members, procs, probe, localize };
}

/**
 * Mount path -> folder, for every volume of the pod: a Secret's folder from `secrets`, a
 * ConfigMap's keys written into a folder, and the member's own folders for the rest (data, emptyDir).
 */
function mountedVolumes(
  pod: Json,
  secrets: Map<string, string>,
  configMaps: Map<string, Json>,
  memberDir: string,
  localizeValue: (value: string) => string = (v) => v,
): Map<string, string> {
  const result = new Map<string, string>();
  const mounts = [...((pod.initContainers ?? []) as Json[]), ...(pod.containers as Json[])].flatMap(
    (c) => c.volumeMounts as Json[],
  );
  for (const mount of mounts) {
    if (result.has(mount.mountPath)) continue;
    const volume = (pod.volumes as Json[] | undefined)?.find((v) => v.name === mount.name);
    if (volume?.secret) {
      const dir = secrets.get(volume.secret.secretName);
      assert.ok(dir, `a folder for Secret ${volume.secret.secretName}`);
      result.set(mount.mountPath, dir);
    } else if (volume?.configMap) {
      const dir = join(memberDir, mount.name);
      mkdirSync(dir, { recursive: true });
      for (const [key, value] of Object.entries(configMaps.get(volume.configMap.name) ?? {}))
        writeFileSync(join(dir, key), localizeValue(value as string));
      result.set(mount.mountPath, dir);
    } else result.set(mount.mountPath, join(memberDir, mount.name));
  }
  return result;
}

test('the synthesized members form a cluster and their probes keep quorum semantics', async (t) => {
  const props: DnsStackProps = { zones: [{ name: 'example.org' }], etcd: { replicas: 3 } };
  const objects = synthObjects(props) as Json[];
  const { members, procs, probe, localize } = await runMembers(objects, new Map());

  // The endpoints the DNS server's config got from EtcdCluster reach the cluster.
  const config = JSON.parse(
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-server-internal')!.data['config.json'],
  );
  const endpoints = (config.etcd.endpoints as string[]).map((url) => localize(url, ''));
  const client = new Etcd3({ hosts: endpoints });
  try {
    await client.put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
    assert.equal(await client.get('/skydns/org/example/www').string(), '{"host":"10.0.0.1"}');
  } finally {
    client.close();
  }

  // One member down: quorum kept (the PDB allows exactly this), the others stay ready.
  await procs.get(members[2]!)!.stop();
  for (const m of members.slice(0, 2)) assert.equal(await probe(m, 'readinessProbe'), 200, `${m} ready with 2 of 3`);

  // Quorum lost: the survivor is taken out of the client Service but not restarted.
  await procs.get(members[1]!)!.stop();
  await waitFor(
    'the survivor to turn unready',
    async () => ((await probe(members[0]!, 'readinessProbe')) === 503 ? true : undefined),
    20_000,
  );
  // `serializable=true` (skip the quorum read) exists from etcd 3.5, the version the stack deploys;
  // the Debian etcd here may be older, and then reports the lost quorum on every path.
  const version = /etcd Version: (\d+)\.(\d+)/.exec(execFileSync(tool('etcd'), ['--version'], { encoding: 'utf8' }));
  if (Number(version?.[1]) > 3 || Number(version?.[2]) >= 5)
    assert.equal(await probe(members[0]!, 'livenessProbe'), 200, 'liveness passes without quorum');
  else t.diagnostic(`etcd ${version?.[0]}: liveness without quorum is checked only with etcd >= 3.5`);
  for (const p of procs.values()) await p.stop();
});

test('prod: TLS between members and to clients; the DNS server pod reads through it with its certificate', async () => {
  const objects = synthObjects(ENVIRONMENTS.prod!) as Json[];
  // The Secrets an operator (or cert-manager) provides: one test CA, certificates for 127.0.0.1.
  const pki = makeTestPki(tempDir('etcd-pki'));
  const tls = ENVIRONMENTS.prod!.etcd!.tls!;
  const secrets = new Map<string, string>();
  for (const name of [tls.serverSecret, tls.peerSecret!, tls.clientSecret]) {
    const dir = tempDir(`secret-${name}`);
    copyFileSync(pki.caCert, join(dir, 'ca.crt'));
    copyFileSync(pki.serverCert, join(dir, 'tls.crt'));
    copyFileSync(pki.serverKey, join(dir, 'tls.key'));
    secrets.set(name, dir);
  }
  const { localize } = await runMembers(objects, secrets);

  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'etcdns-server-internal')!;
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];
  const config = JSON.parse(
    objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-server-internal')!.data['config.json'],
  );
  const endpoints = (config.etcd.endpoints as string[]).map((url) => localize(url, ''));
  assert.ok(endpoints.every((e) => e.startsWith('https://')));

  // Without a client certificate etcd refuses; with the mounted one a record goes in.
  const caOnly = new Etcd3({
    hosts: endpoints,
    credentials: { rootCertificate: readFileSync(pki.caCert) },
    dialTimeout: 2000,
  });
  try {
    await assert.rejects(caOnly.put('/x').value('1').exec(), 'client-certificate auth is on');
  } finally {
    caOnly.close();
  }
  const mounts = mountedVolumes(pod, secrets, new Map(), tempDir('server-pod'));
  const file = (path: string) => {
    // The deepest mount holding the path (a Secret may be mounted inside the config's folder).
    const [mountPath, dir] = [...mounts]
      .filter(([m]) => path.startsWith(`${m}/`))
      .sort((a, b) => b[0].length - a[0].length)[0] ?? ['', ''];
    if (!mountPath) throw new Error(`${path} is not under a mounted volume`);
    return join(dir, path.slice(mountPath.length + 1));
  };
  const read = (path: string) => readFileSync(file(path));
  const client = new Etcd3({
    hosts: endpoints,
    credentials: {
      rootCertificate: read(config.etcd.tls.caFile),
      certChain: read(config.etcd.tls.certFile),
      privateKey: read(config.etcd.tls.keyFile),
    },
  });
  try {
    await client.put('/skydns/org/example/www/1a2b3c4d').value('{"host":"10.9.176.80"}');
  } finally {
    client.close();
  }

  // The pod: its args, its ConfigMap with the certificate paths resolved through its mounts.
  const dnsPort = await freePort();
  const httpPort = await freePort();
  const configFile = join(tempDir('server-config'), 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      ...config,
      etcd: {
        endpoints,
        tls: {
          caFile: file(config.etcd.tls.caFile),
          certFile: file(config.etcd.tls.certFile),
          keyFile: file(config.etcd.tls.keyFile),
        },
      },
      listen: `127.0.0.1:${dnsPort}`,
      httpListen: `127.0.0.1:${httpPort}`,
    }),
  );
  const args = (container.args as string[]).map((a) => (a === '/etc/etcdns/config.json' ? configFile : a));
  const server = startProcess('etcdns-server-prod', nodeBin, [etcdnsBin, ...args]);
  await waitReady(server, 'ready', async () => {
    try {
      return (await fetch(`http://127.0.0.1:${httpPort}${container.readinessProbe.httpGet.path}`)).status === 200;
    } catch {
      return false;
    }
  });
  const answer = await dig({ port: dnsPort, name: 'www.example.org', type: 'A' });
  assert.equal(answer.status, 'NOERROR', answer.raw);
  assert.deepEqual(
    answer.answer.map((r) => r.data),
    ['10.9.176.80'],
  );
});
