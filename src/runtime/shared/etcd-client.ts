// Builds an etcd3 client from an EtcdConnection (files for TLS and password, read at start-up;
// a password value from the environment is used as it is).
import { readFileSync } from 'node:fs';
import { Etcd3, type IOptions } from 'etcd3';
import type { EtcdConnection } from '../../config/etcd-connection.ts';

export function etcdClientOptions(conn: EtcdConnection): IOptions {
  const options: IOptions = { hosts: conn.endpoints };
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

export function createEtcdClient(conn: EtcdConnection): Etcd3 {
  return new Etcd3(etcdClientOptions(conn));
}
