// How a component reaches etcd: the endpoints and Secret references EtcdCluster exposes, turned
// into the volumes a consumer mounts and the EtcdConnection its config file carries (file paths
// into those mounts, never secret values).
import type { k8s } from 'cdk8s-plus-27';
import type { EtcdConnection } from '../../config/etcd-connection.ts';
import type { SecretKeyRef } from '../base/secret-key-ref.ts';

export interface EtcdClientAccess {
  /** Client URLs, namespace-relative (the client Service). */
  endpoints: string[];
  /** Client certificate Secret (keys: CA, certificate, private key), when etcd serves TLS. */
  tls?: { secretName: string; caKey: string; certKey: string; keyKey: string };
  /** etcd user and the Secret key holding its password, when etcd authentication is on. */
  auth?: { username: string; password: SecretKeyRef };
}

export interface EtcdClientMounts {
  connection: EtcdConnection;
  volumes: k8s.Volume[];
  mounts: k8s.VolumeMount[];
}

const TLS_DIR = '/etc/etcdns/etcd-tls';
const AUTH_DIR = '/etc/etcdns/etcd-auth';

export function etcdClientMounts(access: EtcdClientAccess): EtcdClientMounts {
  const connection: EtcdConnection = { endpoints: access.endpoints };
  const volumes: k8s.Volume[] = [];
  const mounts: k8s.VolumeMount[] = [];
  if (access.tls) {
    const { secretName, caKey, certKey, keyKey } = access.tls;
    connection.tls = {
      caFile: `${TLS_DIR}/${caKey}`,
      certFile: `${TLS_DIR}/${certKey}`,
      keyFile: `${TLS_DIR}/${keyKey}`,
    };
    volumes.push({ name: 'etcd-tls', secret: { secretName, defaultMode: 0o440 } });
    mounts.push({ name: 'etcd-tls', mountPath: TLS_DIR, readOnly: true });
  }
  if (access.auth) {
    const { username, password } = access.auth;
    connection.auth = { username, passwordFile: `${AUTH_DIR}/${password.key}` };
    volumes.push({
      name: 'etcd-auth',
      secret: { secretName: password.name, items: [{ key: password.key, path: password.key }], defaultMode: 0o440 },
    });
    mounts.push({ name: 'etcd-auth', mountPath: AUTH_DIR, readOnly: true });
  }
  return { connection, volumes, mounts };
}
