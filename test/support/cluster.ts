// A real single-node Kubernetes on this machine, for the cluster check (test/cluster/):
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler, containerd (+ runc, CNI bridge),
// kubelet and kube-proxy (iptables mode), kube-router's firewall (NetworkPolicy), with CoreDNS
// (kubernetes plugin) as the cluster DNS on the host. Everything is built or installed by scripts/setup-cluster-env.sh; every process is
// stopped by PID and every piece of host state is put back by stop() (cluster-host.ts), also
// after a run that died midway (the next start cleans up first).
//
// Addresses (cluster-host.ts): pods 10.213.0.0/24 on the bridge etcdns0, whose host address
// 10.213.0.1 is the node IP, the API server, the cluster DNS and the NodePort address; Services
// 10.213.128.0/24; load-balancer addresses 10.213.200.0/24. All of 10.213.0.0/16 is blackholed.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import {
  BRIDGE,
  cleanHost,
  cleanStaleRun,
  GATEWAY,
  POD_CIDR,
  recordHost,
  saveRecord,
  SERVICE_CIDR,
  setUpNetwork,
  type HostRecord,
} from './cluster-host.ts';
import { makeClusterPki, type CertFiles } from './cluster-pki.ts';
import { dig } from './dig.ts';
import { startEtcd, type EtcdHandle } from './etcd.ts';
import { apiserverReady } from './kube-apiserver.ts';
import { freePort } from './ports.ts';
import { startProcess, waitFor, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { repoRoot, tool } from './tools.ts';

export { assertLocalRoute, GATEWAY, LB_CIDR, POD_CIDR, SERVICE_CIDR } from './cluster-host.ts';

const cacheBin = join(repoRoot, '.cache', 'bin');
const bin = (name: string) => join(cacheBin, name);
export const CNI_BIN = '/usr/lib/cni';
export const PAUSE_IMAGE = 'localhost/pause:v1.37.2';
export const CLUSTER_DOMAIN = 'cluster.local';

export interface Cluster {
  /** https://10.213.0.1:PORT */
  server: string;
  admin: k8s.KubeConfig;
  kubeconfigFile: string;
  nodeName: string;
  /** The node's address (the bridge's): NodePorts answer here. */
  nodeIp: string;
  /** Milliseconds from start() to a Ready node. */
  startMs: number;
  /** Runs the real kubectl with the admin kubeconfig; throws with its stderr on failure (unless allowFail). */
  kubectl(args: string[], input?: string, allowFail?: boolean): string;
  /** Imports an image archive (OCI or docker) into the kubelet's containerd namespace. */
  importImage(archive: string): void;
  /** A new directory inside the cluster's own (removed at teardown, or by the next start after a crash). */
  workDir(prefix: string): string;
  /** The logs of a component (kubelet, containerd, ...), for failure messages. */
  logs(component: string): string;
  stop(): Promise<string[]>;
}

function kubeconfigYaml(server: string, caFile: string, user: { cert?: CertFiles; token?: string }): string {
  const auth = user.token
    ? `      token: ${user.token}`
    : `      client-certificate: ${user.cert!.cert}\n      client-key: ${user.cert!.key}`;
  return `apiVersion: v1
kind: Config
clusters:
  - name: test
    cluster: { server: "${server}", certificate-authority: ${caFile} }
users:
  - name: user
    user:
${auth}
contexts:
  - name: test
    context: { cluster: test, user: user }
current-context: test
`;
}

/** Starts the whole cluster and waits until the node is Ready and kube-proxy has synced. */
export async function startCluster(options: { images?: string[] } = {}): Promise<Cluster> {
  const started = Date.now();
  const notes = await cleanStaleRun();
  if (notes.length) console.log(`# ${notes.join('; ')}`);
  const dir = tempDir('cluster');
  const record: HostRecord = recordHost([dir]);
  saveRecord(record);
  const procs = new Map<string, ManagedProcess>();
  let etcd: EtcdHandle | undefined;
  const start = (name: string, cmd: string, args: string[], env?: Record<string, string>) => {
    const p = startProcess(name, cmd, args, { env });
    procs.set(name, p);
    record.pids.push(p.pid);
    saveRecord(record);
    return p;
  };
  const stop = async (): Promise<string[]> => {
    // The kubelet first (it would restart containers), then the runtime's containers by their
    // cgroups (cleanHost), then the control plane.
    for (const name of ['kube-router', 'kube-proxy', 'kubelet', 'kube-scheduler', 'kube-controller-manager'])
      await procs.get(name)?.stop();
    const containerd = procs.get('containerd');
    if (containerd?.running()) {
      stopAllContainers(dir);
      await containerd.stop();
    }
    for (const p of procs.values()) await p.stop();
    await etcd?.stop();
    return cleanHost(record);
  };

  try {
    setUpNetwork();
    const nodeName = hostname();
    mkdirSync(join(dir, 'pki'));
    const pki = makeClusterPki(join(dir, 'pki'));

    // --- control plane --------------------------------------------------------------------------
    etcd = await startEtcd();
    for (const m of etcd.members) {
      if (m.process) record.pids.push(m.process.pid);
      record.dirs.push(m.dataDir);
    }
    saveRecord(record);
    const apiPort = await freePort();
    const server = `https://${GATEWAY}:${apiPort}`;
    const serving = pki.issue(
      'apiserver',
      { cn: 'kube-apiserver' },
      {
        ips: [GATEWAY, '10.213.128.1', '127.0.0.1'],
        dns: [
          'kubernetes',
          'kubernetes.default',
          'kubernetes.default.svc',
          `kubernetes.default.svc.${CLUSTER_DOMAIN}`,
          'localhost',
        ],
      },
    );
    const kubeletClient = pki.issue('apiserver-kubelet-client', {
      cn: 'kube-apiserver-kubelet-client',
      o: 'system:masters',
    });
    const adminToken = randomBytes(24).toString('hex');
    writeFileSync(join(dir, 'tokens.csv'), `${adminToken},admin,admin-uid,"system:masters"\n`);
    const kubeconfig = (name: string, user: { cert?: CertFiles; token?: string }) => {
      const file = join(dir, `${name}.kubeconfig`);
      writeFileSync(file, kubeconfigYaml(server, pki.caCert, user));
      return file;
    };
    const adminFile = kubeconfig('admin', { token: adminToken });
    const apiserver = start('kube-apiserver', tool('kube-apiserver'), [
      `--etcd-servers=${etcd.endpoint}`,
      `--bind-address=${GATEWAY}`,
      `--advertise-address=${GATEWAY}`,
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(dir, 'apiserver')}`,
      `--tls-cert-file=${serving.cert}`,
      `--tls-private-key-file=${serving.key}`,
      `--client-ca-file=${pki.caCert}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      '--anonymous-auth=false',
      `--kubelet-client-certificate=${kubeletClient.cert}`,
      `--kubelet-client-key=${kubeletClient.key}`,
      `--kubelet-certificate-authority=${pki.caCert}`,
      '--kubelet-preferred-address-types=InternalIP,Hostname',
      `--service-account-key-file=${pki.serviceAccountPub}`,
      `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      `--service-account-issuer=https://kubernetes.default.svc.${CLUSTER_DOMAIN}`,
      `--api-audiences=https://kubernetes.default.svc.${CLUSTER_DOMAIN}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--allow-privileged=false',
      '--profiling=false',
      '--v=1',
    ]);
    const admin = new k8s.KubeConfig();
    admin.loadFromFile(adminFile);
    const core = admin.makeApiClient(k8s.CoreV1Api);
    await waitReady(apiserver, 'ready', apiserverReady(admin), 120_000);

    const cmPort = await freePort();
    start('kube-controller-manager', bin('kube-controller-manager'), [
      `--kubeconfig=${kubeconfig('controller-manager', { cert: pki.issue('controller-manager', { cn: 'system:kube-controller-manager' }) })}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${cmPort}`,
      `--cert-dir=${join(dir, 'controller-manager')}`,
      `--service-account-private-key-file=${pki.serviceAccountKey}`,
      `--root-ca-file=${pki.caCert}`,
      '--use-service-account-credentials=true',
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--leader-elect=false',
      // The node lifecycle controller's defaults evict pods 5 min after a NotReady node: fine.
      '--v=1',
    ]);
    const schedPort = await freePort();
    start('kube-scheduler', bin('kube-scheduler'), [
      `--kubeconfig=${kubeconfig('scheduler', { cert: pki.issue('scheduler', { cn: 'system:kube-scheduler' }) })}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${schedPort}`,
      `--cert-dir=${join(dir, 'scheduler')}`,
      '--leader-elect=false',
      '--v=1',
    ]);

    // --- cluster DNS: CoreDNS on the node address, port 53 --------------------------------------
    const corefile = join(dir, 'Corefile');
    writeFileSync(
      corefile,
      `.:53 {
  bind ${GATEWAY}
  errors
  kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
    kubeconfig ${kubeconfig('coredns', { cert: pki.issue('coredns', { cn: 'coredns', o: 'system:masters' }) })} test
    pods insecure
    ttl 5
  }
}
`,
    );
    const coredns = start('coredns', tool('coredns'), ['-conf', corefile]);
    await waitReady(coredns, 'answering', async () => {
      const r = await dig({
        server: GATEWAY,
        port: 53,
        name: `kubernetes.default.svc.${CLUSTER_DOMAIN}`,
        timeoutSeconds: 1,
      });
      return r.status === 'NOERROR';
    });

    // --- containerd -----------------------------------------------------------------------------
    const cd = join(dir, 'containerd');
    const cniConf = join(dir, 'cni');
    mkdirSync(cniConf, { recursive: true });
    writeFileSync(
      join(cniConf, '10-etcdns-bridge.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'etcdns-test',
        plugins: [
          {
            type: 'bridge',
            bridge: BRIDGE,
            isGateway: true,
            ipMasq: false,
            hairpinMode: true,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: POD_CIDR, gateway: GATEWAY }]],
              routes: [{ dst: '0.0.0.0/0' }],
              dataDir: join(dir, 'cni-ipam'),
            },
          },
          { type: 'portmap', capabilities: { portMappings: true } },
        ],
      }),
    );
    const address = join(cd, 'containerd.sock');
    record.containerdAddress = address;
    writeFileSync(
      join(cd + '.toml'),
      `version = 3
root = "${cd}/root"
state = "${cd}/state"
disabled_plugins = ["io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "${address}"
[ttrpc]
  address = "${address}.ttrpc"
[debug]
  address = "${address}.debug"
[plugins.'io.containerd.cri.v1.runtime']
  enable_selinux = false
  disable_apparmor = true
  restrict_oom_score_adj = true
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "/usr/sbin/runc"
        SystemdCgroup = false
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    bin_dirs = ["${CNI_BIN}"]
    conf_dir = "${cniConf}"
[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "${PAUSE_IMAGE}"
[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
`,
    );
    mkdirSync(cd, { recursive: true });
    const containerd = start('containerd', bin('containerd'), ['--config', `${cd}.toml`, '--log-level', 'warn'], {
      PATH: `${cacheBin}:/usr/sbin:/usr/bin:/sbin:/bin`,
    });
    const ctr = (args: string[]) =>
      execFileSync(bin('ctr'), ['--address', address, '-n', 'k8s.io', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300_000,
      });
    await waitReady(containerd, 'serving', async () => {
      ctr(['version']);
      return true;
    });
    const importImage = (archive: string) => {
      ctr(['images', 'import', '--no-unpack', '--all-platforms', archive]);
    };
    for (const image of options.images ?? []) importImage(image);

    // --- kubelet --------------------------------------------------------------------------------
    const kubeletDir = join(dir, 'kubelet');
    mkdirSync(kubeletDir, { recursive: true });
    const kubeletServing = pki.issue('kubelet-serving', { cn: nodeName }, { ips: [GATEWAY], dns: [nodeName] });
    const kubeletPort = await freePort();
    const kubeletHealthz = await freePort();
    const resolv = join(dir, 'resolv.conf');
    // Pods with dnsPolicy Default get this: nothing outside the cluster to ask.
    writeFileSync(resolv, `nameserver ${GATEWAY}\n`);
    const kubeletConfig = join(dir, 'kubelet.yaml');
    writeFileSync(
      kubeletConfig,
      JSON.stringify({
        apiVersion: 'kubelet.config.k8s.io/v1beta1',
        kind: 'KubeletConfiguration',
        // This machine has cgroups v1 (hybrid), which the kubelet refuses by default.
        failCgroupV1: false,
        cgroupDriver: 'cgroupfs',
        containerRuntimeEndpoint: `unix://${address}`,
        address: GATEWAY,
        port: kubeletPort,
        readOnlyPort: 0,
        healthzBindAddress: '127.0.0.1',
        healthzPort: kubeletHealthz,
        tlsCertFile: kubeletServing.cert,
        tlsPrivateKeyFile: kubeletServing.key,
        authentication: {
          anonymous: { enabled: false },
          webhook: { enabled: true },
          x509: { clientCAFile: pki.caCert },
        },
        authorization: { mode: 'Webhook' },
        clusterDNS: [GATEWAY],
        clusterDomain: CLUSTER_DOMAIN,
        resolvConf: resolv,
        failSwapOn: false,
        podLogsDir: join(dir, 'pod-logs'),
        hairpinMode: 'hairpin-veth',
        serializeImagePulls: false,
        // The images are imported, never pulled: no garbage collection of them either.
        imageGCHighThresholdPercent: 100,
        imageGCLowThresholdPercent: 99,
        evictionHard: { 'memory.available': '100Mi', 'nodefs.available': '1%', 'imagefs.available': '1%' },
        syncFrequency: '10s',
        fileCheckFrequency: '10s',
        maxPods: 60,
      }),
    );
    const kubelet = start('kubelet', bin('kubelet'), [
      `--config=${kubeletConfig}`,
      `--kubeconfig=${kubeconfig('kubelet', { cert: pki.issue('kubelet', { cn: `system:node:${nodeName}`, o: 'system:nodes' }) })}`,
      `--root-dir=${kubeletDir}`,
      `--node-ip=${GATEWAY}`,
      '--v=1',
    ]);

    // --- kube-proxy -----------------------------------------------------------------------------
    const proxyHealthz = await freePort();
    const proxyMetrics = await freePort();
    const proxyConfig = join(dir, 'kube-proxy.yaml');
    writeFileSync(
      proxyConfig,
      JSON.stringify({
        apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
        kind: 'KubeProxyConfiguration',
        mode: 'iptables',
        clientConnection: {
          kubeconfig: kubeconfig('kube-proxy', { cert: pki.issue('kube-proxy', { cn: 'system:kube-proxy' }) }),
        },
        hostnameOverride: nodeName,
        clusterCIDR: POD_CIDR,
        // NodePorts only on the bridge address, never on the host's own interfaces.
        nodePortAddresses: [`${GATEWAY}/32`],
        healthzBindAddress: `127.0.0.1:${proxyHealthz}`,
        metricsBindAddress: `127.0.0.1:${proxyMetrics}`,
        // Leave the host's conntrack settings alone.
        conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: '0s', tcpCloseWaitTimeout: '0s' },
        iptables: { syncPeriod: '30s', minSyncPeriod: '0s' },
      }),
    );
    record.kubeProxy = bin('kube-proxy');
    saveRecord(record);
    const proxy = start('kube-proxy', bin('kube-proxy'), [`--config=${proxyConfig}`, '--v=1']);

    await waitReady(
      kubelet,
      'Ready',
      async () => {
        const node = await core.readNode({ name: nodeName });
        return node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
      },
      180_000,
    );
    await waitReady(
      proxy,
      'synced',
      async () => (await fetch(`http://127.0.0.1:${proxyHealthz}/healthz`, { signal: AbortSignal.timeout(1000) })).ok,
      60_000,
    );
    // --- kube-router: its firewall only, which enforces NetworkPolicy beside the bridge plugin ---
    // (iptables chains and ipsets, bridged traffic through br_netfilter's physdev match). It reads
    // its node at start, so it starts once the node is registered. v2.1.0 has reported security
    // flaws: it is test infrastructure only, here on the fenced bridge of this test cluster.
    // No health or metrics port: both would listen on every interface.
    const router = start('kube-router', bin('kube-router'), [
      '--run-firewall=true',
      '--run-router=false',
      '--run-service-proxy=false',
      `--kubeconfig=${kubeconfig('kube-router', { cert: pki.issue('kube-router', { cn: 'kube-router', o: 'system:masters' }) })}`,
      `--hostname-override=${nodeName}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      '--health-port=0',
      '--metrics-port=0',
      '--v=1',
    ]);
    await waitReady(router, 'its first firewall sync', async () => /sync iptables took/.test(router.logs()), 60_000);
    // ServiceAccounts (and their tokens) exist only once the controller manager's controllers run.
    await waitFor(
      'the default ServiceAccount',
      async () => {
        await core.readNamespacedServiceAccount({ namespace: 'default', name: 'default' });
        return true;
      },
      60_000,
    );

    const logsOf = (component: string) =>
      procs.get(component)?.logs() ?? (component === 'etcd' ? '' : 'no such component');
    return {
      server,
      admin,
      kubeconfigFile: adminFile,
      nodeName,
      nodeIp: GATEWAY,
      startMs: Date.now() - started,
      kubectl: (args, input, allowFail) => {
        const r = spawnSync('kubectl', ['--kubeconfig', adminFile, ...args], {
          encoding: 'utf8',
          input,
          timeout: 120_000,
        });
        if (r.status !== 0 && !allowFail) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr || r.error?.message}`);
        return r.stdout;
      },
      importImage,
      workDir: (prefix) => mkdtempSync(join(dir, `${prefix}-`)),
      logs: logsOf,
      stop,
    };
  } catch (e) {
    const logs = [...procs.values()]
      .filter((p) => !p.running() || p.name === 'kubelet')
      .map((p) => `--- ${p.name} ---\n${p.logs().slice(-3000)}`)
      .join('\n');
    const cleaned = await stop().catch((err: Error) => [`teardown failed: ${err.message}`]);
    throw new Error(`${(e as Error).message}\n${logs}\n(teardown: ${cleaned.join('; ') || 'clean'})`, { cause: e });
  }
}

/** Kills every task in the kubelet's namespace through containerd (before stopping it). */
function stopAllContainers(dir: string): void {
  const address = join(dir, 'containerd', 'containerd.sock');
  const ctr = (args: string[]) =>
    spawnSync(bin('ctr'), ['--address', address, '-n', 'k8s.io', ...args], { encoding: 'utf8', timeout: 30_000 });
  const tasks = ctr(['tasks', 'list', '-q']).stdout?.split('\n').filter(Boolean) ?? [];
  for (const t of tasks) ctr(['tasks', 'kill', '-s', 'SIGKILL', t]);
  for (const t of tasks) ctr(['tasks', 'delete', '-f', t]);
}

/** The kubelet's and containerd's view, when a test fails (pods, events). */
export function describeCluster(cluster: Cluster, namespace: string): string {
  try {
    return [
      cluster.kubectl(['get', 'pods', '-A', '-o', 'wide']),
      cluster.kubectl(['get', 'events', '-n', namespace, '--sort-by=.lastTimestamp']).split('\n').slice(-40).join('\n'),
    ].join('\n');
  } catch (e) {
    return String(e);
  }
}
