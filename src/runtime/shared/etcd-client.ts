// The one etcd3 client builder of every command: endpoints, TLS files and the password, read at
// start-up (a password value from the environment is used as it is); each command adds its own
// timeouts and limits.
import { readFileSync } from 'node:fs';
import { Etcd3, type IOptions } from 'etcd3';
import type { EtcdConnection } from '../../config/etcd-connection.ts';

/** A command's own client settings on top of the connection: timeouts, gRPC limits. */
export type EtcdCallOptions = Omit<IOptions, 'hosts' | 'credentials' | 'auth'>;

export function etcdClientOptions(conn: EtcdConnection, call: EtcdCallOptions = {}): IOptions {
  const options: IOptions = { hosts: conn.endpoints, ...call };
  if (conn.tls) {
    options.credentials = {
      rootCertificate: readFileSync(conn.tls.caFile),
      ...(conn.tls.certFile ? { certChain: readFileSync(conn.tls.certFile) } : {}),
      ...(conn.tls.keyFile ? { privateKey: readFileSync(conn.tls.keyFile) } : {}),
    };
  }
  if (conn.auth) {
    const { username, password, passwordFile } = conn.auth;
    options.auth = { username, password: password ?? readFileSync(passwordFile!, 'utf8').trim() };
  }
  return options;
}

export function createEtcdClient(conn: EtcdConnection, call: EtcdCallOptions = {}): Etcd3 {
  return new Etcd3(etcdClientOptions(conn, call));
}
