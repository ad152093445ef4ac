// Test PKI made with the real openssl: a CA, a serving certificate for loopback, and an RSA
// key pair for signing ServiceAccount tokens. Nothing is committed; each run makes its own.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tool } from './tools.ts';

export interface TestPki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync(tool('openssl'), args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Writes the PKI files into `dir`; the serving certificate is valid for 127.0.0.1, ::1 and localhost. */
export function makeTestPki(dir: string, commonName = 'etcdns-test'): TestPki {
  const p = (f: string) => join(dir, f);
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${commonName}-ca`,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ],
    dir,
  );
  writeFileSync(
    p('server.ext'),
    'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  openssl(
    [
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${commonName}`,
      '-keyout',
      'server.key',
      '-out',
      'server.csr',
    ],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      'server.ext',
      '-out',
      'server.crt',
    ],
    dir,
  );
  openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  return {
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    serviceAccountKey: p('sa.key'),
    serviceAccountPub: p('sa.pub'),
  };
}
