// The membership calls etcd-member needs, over the etcd3 client (gRPC, optional TLS and login).
import {
  Etcd3,
  EtcdAuthenticationFailedError,
  EtcdInvalidAuthTokenError,
  EtcdPermissionDeniedError,
  GRPCUnauthenticatedError,
} from 'etcd3';
import { createEtcdClient, type EtcdCallOptions } from '../shared/etcd-client.ts';
import type { ClusterMember } from './member-plan.ts';

export interface MemberApi {
  /** The member list, or undefined when no endpoint answers within a few seconds. */
  members(): Promise<ClusterMember[] | undefined>;
  /** member add; resolves to the member list after the add. */
  add(peerUrl: string): Promise<ClusterMember[]>;
  remove(id: string): Promise<void>;
  close(): void;
}

/** How etcd-member reaches and logs in to the cluster. */
export interface MemberConnection {
  endpoints: string[];
  tls?: { caFile: string; certFile?: string; keyFile?: string };
  /**
   * With etcd authentication on, member add and remove need the root role: a client certificate's
   * common name alone is not root, so etcd-member logs in with a password.
   */
  auth?: { username: string; passwordFile: string };
}

const ANSWER_MS = 4000;
/**
 * Every call's deadline. Without one a member add can wait for ever: etcd waits for its proposal
 * as long as the client does, and a proposal lost (a leader change, a member that stopped
 * answering) never returns; an init container stuck there (Init:0/2 for 8 minutes in a CI run's
 * 3 -> 5 scale-up) never reaches its own --timeout. A retry plans again from the member list,
 * where an add that did land shows as a member that never started.
 */
export const CALL_MS = 15_000;

function toMember(m: { ID: string; name: string; peerURLs?: string[]; clientURLs?: string[] }): ClusterMember {
  return { id: m.ID, name: m.name, peerUrls: m.peerURLs ?? [], clientUrls: m.clientURLs ?? [] };
}

/**
 * A cluster that answered but refused the login or the call is there: bootstrapping a new one
 * beside it would split the data, so these errors are raised (and retried), not read as silence.
 */
const REFUSALS = [
  EtcdAuthenticationFailedError,
  EtcdInvalidAuthTokenError,
  EtcdPermissionDeniedError,
  GRPCUnauthenticatedError,
];

function silentUnlessRefused(e: unknown): undefined {
  if (REFUSALS.some((refusal) => e instanceof refusal)) throw e;
  return undefined;
}

function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms).unref())]);
}

/** etcd's answer to a login while authentication is off (before the roles Job turns it on). */
const AUTH_OFF = /authentication is not enabled/;

export function openCluster(c: MemberConnection, callMs = CALL_MS): MemberApi {
  const calls: EtcdCallOptions = {
    dialTimeout: ANSWER_MS,
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + callMs }),
  };
  const plain = createEtcdClient({ endpoints: c.endpoints, tls: c.tls }, calls);
  let client = c.auth ? createEtcdClient(c, calls) : plain;
  // A cluster bootstraps with authentication off; root's login works only once it is on.
  const call = async <T>(f: (client: Etcd3) => Promise<T>): Promise<T> => {
    try {
      return await f(client);
    } catch (e) {
      if (client === plain || !AUTH_OFF.test((e as Error).message)) throw e;
      client.close();
      client = plain;
      return f(client);
    }
  };
  return {
    members: async () => {
      const r = await within(ANSWER_MS, call((cl) => cl.cluster.memberList({})).catch(silentUnlessRefused));
      return r?.members.map(toMember);
    },
    add: async (peerUrl) => (await call((cl) => cl.cluster.memberAdd({ peerURLs: [peerUrl] }))).members.map(toMember),
    remove: async (id) => {
      await call((cl) => cl.cluster.memberRemove({ ID: id }));
    },
    close: () => {
      client.close();
      plain.close();
    },
  };
}
