// The certificates of the single-node test cluster, made with the real openssl: one CA for the
// API server, the kubelet's serving certificate and every component's client certificate, and
// an RSA key pair for ServiceAccount tokens. Nothing is committed; each run makes its own.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tool } from './tools.ts';

export interface CertFiles {
  cert: string;
  key: string;
}

export interface ClusterPki {
  dir: string;
  caCert: string;
  caKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
  /** Issues a certificate signed by the CA (client and server usage) with the given SANs. */
  issue(file: string, subject: { cn: string; o?: string }, sans?: { ips?: string[]; dns?: string[] }): CertFiles;
}

function openssl(args: string[], cwd: string): void {
  execFileSync(tool('openssl'), args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeClusterPki(dir: string): ClusterPki {
  const p = (f: string) => join(dir, f);
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=etcdns-cluster-ca'].concat([
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]),
    dir,
  );
  openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
  openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
  const issue: ClusterPki['issue'] = (file, subject, sans = {}) => {
    const names = [...(sans.ips ?? []).map((ip) => `IP:${ip}`), ...(sans.dns ?? []).map((d) => `DNS:${d}`)];
    const ext = [
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth,clientAuth',
      ...(names.length ? [`subjectAltName=${names.join(',')}`] : []),
    ];
    writeFileSync(p(`${file}.ext`), `${ext.join('\n')}\n`);
    const subj = `${subject.o ? `/O=${subject.o}` : ''}/CN=${subject.cn}`;
    openssl(
      ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', subj, '-keyout', `${file}.key`, '-out', `${file}.csr`],
      dir,
    );
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${file}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '2',
      ].concat(['-extfile', `${file}.ext`, '-out', `${file}.crt`]),
      dir,
    );
    return { cert: p(`${file}.crt`), key: p(`${file}.key`) };
  };
  return {
    dir,
    caCert: p('ca.crt'),
    caKey: p('ca.key'),
    serviceAccountKey: p('sa.key'),
    serviceAccountPub: p('sa.pub'),
    issue,
  };
}
