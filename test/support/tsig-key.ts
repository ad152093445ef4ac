// A TSIG key as the tests hand it to etcdns and its secondaries: BIND's key statement, which
// etcdns's --transfer-key-file, named.conf and a Kubernetes Secret's tsig.key all take, and the
// arguments that turn on zone transfers with it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TsigKeySpec {
  name: string;
  /** As BIND spells it: "hmac-sha256", "hmac-sha512", ... */
  algorithm: string;
  /** Base64. */
  secret: string;
}

export const keyStatement = (k: TsigKeySpec) => `key "${k.name}" { algorithm ${k.algorithm}; secret "${k.secret}"; };`;

/** `key` as a key file in `dir`; returns its path. */
export function writeKeyFile(dir: string, key: TsigKeySpec, file = 'transfer.key'): string {
  const path = join(dir, file);
  writeFileSync(path, `${keyStatement(key)}\n`);
  return path;
}

/** etcdns's arguments for transfers to loopback (signed with `keyFile` if given), NOTIFY to each of `notifyPorts`. */
export const transferArgs = (notifyPorts: number[], keyFile?: string) => [
  '--transfer-allow-cidr',
  '127.0.0.1/32',
  ...(keyFile ? ['--transfer-key-file', keyFile] : []),
  ...notifyPorts.flatMap((port) => ['--transfer-notify', `127.0.0.1:${port}`]),
];
