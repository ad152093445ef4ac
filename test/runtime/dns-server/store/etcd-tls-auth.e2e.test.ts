// etcd over TLS (with client certificates) and with user and password, as the server reads them
// from flags, environment and files: a real etcd with a test PKI, the real etcdctl to enable auth.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Etcd3, type IOptions } from 'etcd3';
import { RecordStore } from '../../../../src/runtime/dns-server/store/record-store.ts';
import { ServerMetrics } from '../../../../src/runtime/dns-server/server-metrics.ts';
import { createLogger } from '../../../../src/runtime/shared/log.ts';
import { makeTestPki, type TestPki } from '../../../support/certificates.ts';
import { answerData, dig } from '../../../support/dig.ts';
import { etcdnsServerArgs, startEtcdnsServer } from '../../../support/etcdns-server.ts';
import { freePort } from '../../../support/ports.ts';
import { startProcess, stopAll, waitFor, type ManagedProcess } from '../../../support/process.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { nodeBin, tool } from '../../../support/tools.ts';

after(stopAll);

const run = promisify(execFile);

interface TlsEtcd {
  endpoint: string;
  process: ManagedProcess;
  /** An admin client (client certificate, and root's password once auth is on). */
  client(password?: string): Etcd3;
}

async function startTlsEtcd(pki: TestPki, clientCertAuth: boolean): Promise<TlsEtcd> {
  const endpoint = `https://127.0.0.1:${await freePort()}`;
  const proc = startProcess('etcd-tls', tool('etcd'), [
    `--data-dir=${tempDir('etcd-tls')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=http://127.0.0.1:${await freePort()}`,
    `--cert-file=${pki.serverCert}`,
    `--key-file=${pki.serverKey}`,
    ...(clientCertAuth ? ['--client-cert-auth', `--trusted-ca-file=${pki.caCert}`] : []),
    '--logger=zap',
    '--log-level=warn',
  ]);
  const client = (password?: string) => {
    const options: IOptions = {
      hosts: endpoint,
      credentials: {
        rootCertificate: readFileSync(pki.caCert),
        certChain: readFileSync(pki.serverCert),
        privateKey: readFileSync(pki.serverKey),
      },
    };
    if (password) options.auth = { username: 'root', password };
    return new Etcd3(options);
  };
  const probe = client();
  await waitFor('TLS etcd', async () => ((await probe.get('probe').string()) === null ? true : undefined));
  probe.close();
  return { endpoint, process: proc, client };
}

/** Adds root with password "s3cret" (the real etcdctl) and turns auth on; returns root's client. */
async function enablePasswordAuth(etcd: TlsEtcd, pki: TestPki): Promise<Etcd3> {
  const etcdctl = (...args: string[]) =>
    run(tool('etcdctl'), [`--endpoints=${etcd.endpoint}`, `--cacert=${pki.caCert}`, ...args], {
      env: { ...process.env, ETCDCTL_API: '3' },
    });
  await etcdctl('user', 'add', 'root:s3cret');
  await etcdctl('auth', 'enable');
  return etcd.client('s3cret');
}

test('TLS with client certificates, from ETCDNS_ETCD_CA_FILE, ETCDNS_ETCD_CERT_FILE and ETCDNS_ETCD_KEY_FILE', async () => {
  const pki = makeTestPki(tempDir('pki-mtls'));
  const etcd = await startTlsEtcd(pki, true);
  const admin = etcd.client();
  try {
    await admin.put('/skydns/org/example/www').value('{"host":"10.0.0.1"}');
    const server = await startEtcdnsServer({
      etcdEndpoints: [etcd.endpoint],
      zones: ['example.org'],
      env: {
        ETCDNS_ETCD_CA_FILE: pki.caCert,
        ETCDNS_ETCD_CERT_FILE: pki.serverCert,
        ETCDNS_ETCD_KEY_FILE: pki.serverKey,
      },
    });
    try {
      assert.deepEqual(answerData(await dig({ port: server.port, name: 'www.example.org' }), 'A'), ['10.0.0.1']);
    } finally {
      await server.stop();
    }
  } finally {
    admin.close();
    await etcd.process.stop();
  }
});

test('user and password (a password file, or ETCDNS_ETCD_PASSWORD); a wrong password keeps it unready, saying why', async () => {
  const pki = makeTestPki(tempDir('pki-auth'));
  const etcd = await startTlsEtcd(pki, false);
  const admin = await enablePasswordAuth(etcd, pki);
  const passwordFile = join(tempDir('etcd-password'), 'password');
  writeFileSync(passwordFile, 's3cret\n');
  try {
    await admin.put('/skydns/org/example/www').value('{"host":"10.0.0.2"}');
    const ways: { args: string[]; env: Record<string, string> }[] = [
      { args: ['--etcd-username', 'root', '--etcd-password-file', passwordFile], env: {} },
      { args: [], env: { ETCDNS_ETCD_USERNAME: 'root', ETCDNS_ETCD_PASSWORD: 's3cret' } },
    ];
    for (const how of ways) {
      const server = await startEtcdnsServer({
        etcdEndpoints: [etcd.endpoint],
        zones: ['example.org'],
        args: ['--etcd-ca-file', pki.caCert, ...how.args],
        env: how.env,
      });
      try {
        assert.deepEqual(answerData(await dig({ port: server.port, name: 'www.example.org' }), 'A'), ['10.0.0.2']);
      } finally {
        await server.stop();
      }
    }

    const [port, httpPort] = [await freePort(), await freePort()];
    const wrong = startProcess(
      'etcdns-server-wrong-password',
      nodeBin,
      etcdnsServerArgs(
        {
          etcdEndpoints: [etcd.endpoint],
          zones: ['example.org'],
          args: ['--etcd-ca-file', pki.caCert, '--etcd-username', 'root'],
        },
        port,
        httpPort,
      ),
      { env: { ETCDNS_ETCD_PASSWORD: 'wrong' } },
    );
    try {
      const readyz = await waitFor('the reason in /readyz', async () => {
        const res = await fetch(`http://127.0.0.1:${httpPort}/readyz`);
        const body = await res.text();
        return body.includes('authentication failed') ? { status: res.status, body } : undefined;
      });
      assert.equal(readyz.status, 503);
      assert.match(readyz.body, /^not ready: loading: .*authentication failed/);
      // Until the first load, queries get SERVFAIL rather than empty answers.
      assert.equal((await dig({ port, name: 'www.example.org' })).status, 'SERVFAIL');
    } finally {
      await wrong.stop();
    }
  } finally {
    admin.close();
    await etcd.process.stop();
  }
});

test('a load of many range pages over TLS with user and password: every key arrives', async () => {
  const pki = makeTestPki(tempDir('pki-pages'));
  const etcd = await startTlsEtcd(pki, false);
  const admin = await enablePasswordAuth(etcd, pki);
  const client = etcd.client('s3cret');
  const store = new RecordStore({
    client,
    prefix: '/skydns',
    zones: ['example.org.'],
    logger: createLogger('error', {}, () => undefined),
    metrics: new ServerMetrics().store,
    onChange: () => undefined,
    // Pages of 7 keys: the first through etcd3's call, the other eight as bytes through its pool,
    // which must carry the auth token (without it etcd refuses them: the copy never loads).
    pageSize: 7,
  });
  try {
    const names = Array.from({ length: 60 }, (_, i) => `n${i}`);
    await Promise.all(names.map((n, i) => admin.put(`/skydns/org/example/${n}/x`).value(`{"host":"10.0.1.${i}"}`)));
    store.start();
    await waitFor('the copy to be loaded', () => (store.state === 'synced' ? true : undefined));
    assert.equal(store.index.entryCount, names.length);
    assert.equal(store.index.find(['n59', 'example', 'org'])?.children?.size, 1);
  } finally {
    await store.stop();
    client.close();
    admin.close();
    await etcd.process.stop();
  }
});
