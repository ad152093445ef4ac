// A real etcd (Debian's etcd-server) on loopback: one member, or a cluster of N members.
import { readFileSync } from 'node:fs';
import { Etcd3 } from 'etcd3';
import type { TestPki } from './certificates.ts';
import { freePort } from './ports.ts';
import { startProcess, waitReady, type ManagedProcess } from './process.ts';
import { tempDir } from './temp-dir.ts';
import { tool } from './tools.ts';

export interface EtcdMember {
  name: string;
  clientUrl: string;
  /** Plain-HTTP /health (etcd's metrics listener): the client URL's, unless it serves TLS. */
  healthUrl: string;
  peerUrl: string;
  dataDir: string;
  process: ManagedProcess | undefined;
}

export interface EtcdHandle {
  /** Client URLs of all members. */
  endpoints: string[];
  /** The first member's client URL. */
  endpoint: string;
  members: EtcdMember[];
  /** A client for all members; closed by stop(). */
  client(): Etcd3;
  /** Stops every member (data directories are kept, so start() brings the same data back). */
  stop(): Promise<void>;
  /** (Re)starts every stopped member with its data and ports. */
  start(): Promise<void>;
  /** Stops or starts one member. */
  stopMember(index: number): Promise<void>;
  startMember(index: number): Promise<void>;
}

async function healthy(healthUrl: string): Promise<boolean> {
  try {
    const res = await fetch(`${healthUrl}/health`, { signal: AbortSignal.timeout(1000) });
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

export interface EtcdOptions {
  /** Where the members' data directories go (the system's temporary directory unless told). */
  dataParent?: string;
  /**
   * Serve clients over TLS with this PKI's serving certificate, checking client certificates
   * against its CA (as the prod example's etcd); client() presents the same certificate.
   */
  tls?: TestPki;
}

export async function startEtcdCluster(size: number, o: EtcdOptions = {}): Promise<EtcdHandle> {
  const members: EtcdMember[] = [];
  const scheme = o.tls ? 'https' : 'http';
  for (let i = 0; i < size; i++) {
    const clientUrl = `${scheme}://127.0.0.1:${await freePort()}`;
    members.push({
      name: `etcd-${i}`,
      clientUrl,
      healthUrl: o.tls ? `http://127.0.0.1:${await freePort()}` : clientUrl,
      peerUrl: `http://127.0.0.1:${await freePort()}`,
      dataDir: tempDir(`etcd-${i}`, o.dataParent),
      process: undefined,
    });
  }
  const initialCluster = members.map((m) => `${m.name}=${m.peerUrl}`).join(',');
  const token = `etcdns-test-${process.pid}-${members[0]!.clientUrl.split(':').pop()}`;
  const clients: Etcd3[] = [];

  const launch = (m: EtcdMember) => {
    m.process = startProcess(m.name, tool('etcd'), [
      `--name=${m.name}`,
      `--data-dir=${m.dataDir}`,
      `--listen-client-urls=${m.clientUrl}`,
      `--advertise-client-urls=${m.clientUrl}`,
      `--listen-peer-urls=${m.peerUrl}`,
      `--initial-advertise-peer-urls=${m.peerUrl}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${token}`,
      '--initial-cluster-state=new',
      ...(o.tls
        ? [
            `--cert-file=${o.tls.serverCert}`,
            `--key-file=${o.tls.serverKey}`,
            '--client-cert-auth',
            `--trusted-ca-file=${o.tls.caCert}`,
            `--listen-metrics-urls=${m.healthUrl}`,
          ]
        : []),
      '--logger=zap',
      '--log-level=warn',
    ]);
  };
  const startMember = async (index: number) => {
    const m = members[index]!;
    if (m.process?.running()) return;
    launch(m);
  };
  const waitHealthy = async (ms: EtcdMember[]) => {
    await Promise.all(ms.map((m) => waitReady(m.process!, 'healthy', () => healthy(m.healthUrl))));
  };

  members.forEach((_, i) => void startMember(i));
  await waitHealthy(members);

  const endpoints = members.map((m) => m.clientUrl);
  return {
    endpoints,
    endpoint: endpoints[0]!,
    members,
    client: () => {
      const c = new Etcd3({ hosts: endpoints, ...(o.tls ? { credentials: etcdCredentials(o.tls) } : {}) });
      clients.push(c);
      return c;
    },
    stop: async () => {
      for (const c of clients.splice(0)) c.close();
      await Promise.all(members.map((m) => m.process?.stop()));
    },
    start: async () => {
      const stopped = members.filter((m) => !m.process?.running());
      stopped.forEach(launch);
      await waitHealthy(stopped);
    },
    stopMember: async (index) => {
      await members[index]!.process?.stop();
    },
    startMember: async (index) => {
      await startMember(index);
      await waitHealthy([members[index]!]);
    },
  };
}

export function startEtcd(o: EtcdOptions = {}): Promise<EtcdHandle> {
  return startEtcdCluster(1, o);
}

/** An etcdns program's flags to log in to an etcd started with `tls` as `user`, its password in `passwordFile`. */
export function etcdLoginArgs(pki: TestPki, user: string, passwordFile: string): string[] {
  return [
    ...['--etcd-ca-file', pki.caCert, '--etcd-cert-file', pki.serverCert, '--etcd-key-file', pki.serverKey],
    ...['--etcd-username', user, '--etcd-password-file', passwordFile],
  ];
}

/** The TLS credentials of a client of an etcd started with `tls`: its CA, the PKI's certificate. */
export function etcdCredentials(pki: TestPki) {
  return {
    rootCertificate: readFileSync(pki.caCert),
    certChain: readFileSync(pki.serverCert),
    privateKey: readFileSync(pki.serverKey),
  };
}
