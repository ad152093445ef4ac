// The three membership calls etcd-member needs, over the etcd3 client (gRPC, optional TLS).
import { readFileSync } from 'node:fs';
import { Etcd3, type IOptions } from 'etcd3';
import type { ClusterMember } from './member-plan.ts';

export interface MemberApi {
  /** The member list, or undefined when no endpoint answers within a few seconds. */
  members(): Promise<ClusterMember[] | undefined>;
  /** member add; resolves to the member list after the add. */
  add(peerUrl: string): Promise<ClusterMember[]>;
  remove(id: string): Promise<void>;
  close(): void;
}

const ANSWER_MS = 4000;

function toMember(m: { ID: string; name: string; peerURLs?: string[]; clientURLs?: string[] }): ClusterMember {
  return { id: m.ID, name: m.name, peerUrls: m.peerURLs ?? [], clientUrls: m.clientURLs ?? [] };
}

function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);
}

export function openCluster(
  endpoints: string[],
  tls?: { caFile: string; certFile?: string; keyFile?: string },
): MemberApi {
  const options: IOptions = { hosts: endpoints, dialTimeout: ANSWER_MS };
  if (tls)
    options.credentials = {
      rootCertificate: readFileSync(tls.caFile),
      ...(tls.certFile ? { certChain: readFileSync(tls.certFile) } : {}),
      ...(tls.keyFile ? { privateKey: readFileSync(tls.keyFile) } : {}),
    };
  const client = new Etcd3(options);
  return {
    members: async () => {
      const r = await within(
        ANSWER_MS,
        client.cluster.memberList({}).catch(() => undefined),
      );
      return r?.members.map(toMember);
    },
    add: async (peerUrl) => (await client.cluster.memberAdd({ peerURLs: [peerUrl] })).members.map(toMember),
    remove: async (id) => {
      await client.cluster.memberRemove({ ID: id });
    },
    close: () => client.close(),
  };
}
