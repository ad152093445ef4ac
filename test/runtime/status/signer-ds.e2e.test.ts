// `etcdns status`'s DS for the parent, read from a real Knot signing a zone (CDS always
// published, as the DnssecSigner configures it) through a real kube-apiserver holding the
// signer's synthesized ConfigMap and Service: the DS lines are the ones `keymgr ds` prints for
// the zone's KSK; a zone Knot does not sign has none; no signer ConfigMap, no signer section.
// The one change to the synthesized Service: its port is Knot's free loopback port, and its
// load balancer's address (set through the status subresource, as a load balancer would) 127.0.0.1.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { synthObjects } from '../../../src/constructs/synth-stack.ts';
import { KubeClient } from '../../../src/runtime/kube/kube-client.ts';
import { loadKubeTarget } from '../../../src/runtime/kube/kube-target.ts';
import { readDs } from '../../../src/runtime/status/signer-ds.ts';
import { readStackStatus } from '../../../src/runtime/status/stack-status.ts';
import { dig } from '../../support/dig.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { freePort } from '../../support/ports.ts';
import { startProcess, stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { tool } from '../../support/tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const run = promisify(execFile);
let kube: KubeHandle;
let port: number;
let config: string;

const zoneFile = (zone: string) =>
  `$ORIGIN ${zone}\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 300\n@ NS ns1\nns1 A 192.0.2.1\nwww A 192.0.2.10\n`;

before(async () => {
  const dir = tempDir('signer-ds');
  port = await freePort();
  for (const zone of ['example.org.', 'example.net.']) writeFileSync(join(dir, `${zone}zone`), zoneFile(zone));
  config = join(dir, 'knot.conf');
  // example.org signed with the DnssecSigner's CDS setting; example.net served unsigned.
  writeFileSync(
    config,
    [
      'server:',
      `    rundir: ${dir}`,
      `    listen: 127.0.0.1@${port}`,
      'database:',
      `    storage: ${dir}`,
      'policy:',
      '  - id: signer',
      '    algorithm: ecdsap256sha256',
      '    cds-cdnskey-publish: always',
      'zone:',
      '  - domain: example.org.',
      `    file: ${dir}/example.org.zone`,
      '    zonefile-sync: -1',
      '    dnssec-signing: on',
      '    dnssec-policy: signer',
      '  - domain: example.net.',
      `    file: ${dir}/example.net.zone`,
      '',
    ].join('\n'),
  );
  const knotd = startProcess('knotd-cds', tool('knotd'), ['-c', config]);
  await waitFor('the signed zone', async () => {
    const r = await dig({ port, name: 'example.org', type: 'SOA', extra: ['+dnssec'], timeoutSeconds: 1 });
    return r.answer.some((a) => a.type === 'RRSIG') || undefined;
  }).catch((e: Error) => {
    throw new Error(`${e.message}\n${knotd.logs()}`);
  });
  kube = await startKubeApiserver();
});

after(() => stopAll());

/** The SHA-256 DS lines `keymgr ds` prints, in readDs's form. */
async function keymgrDs(zone: string): Promise<string[]> {
  const { stdout } = await run(tool('keymgr'), ['-c', config, zone, 'ds']);
  return stdout
    .split('\n')
    .filter((l) => / DS \d+ \d+ 2 /.test(l))
    .map((l) => {
      const [, tag, alg, type, digest] = /DS (\d+) (\d+) (\d+) ([0-9A-Fa-f]+)/.exec(l)!;
      return `${zone} IN DS ${tag} ${alg} ${type} ${digest!.toUpperCase()}`;
    })
    .sort();
}

test("readDs: the signed zone's CDS, as the DS keymgr gives for its KSK", async () => {
  const expected = await keymgrDs('example.org.');
  assert.ok(expected.length > 0);
  assert.deepEqual(await readDs('127.0.0.1', port, 'example.org.', 2000), expected);
});

test('readDs: a zone that is not signed has none', async () => {
  assert.deepEqual(await readDs('127.0.0.1', port, 'example.net.', 2000), []);
});

test('readDs: no answer fails, naming the address', async () => {
  const silent = await freePort();
  await assert.rejects(readDs('127.0.0.1', silent, 'example.org.', 300), /no answer from 127\.0\.0\.1:\d+ in 300 ms/);
});

test("readStackStatus: the signer's zones from its ConfigMap, their DS at its Service's address", async () => {
  const objects = synthObjects({
    zones: [{ name: 'example.org' }, { name: 'example.net' }],
    dnssec: { podCidrs: ['10.244.0.0/16'], zones: ['example.org'] },
  }) as Json[];
  const core = kube.admin.makeApiClient(k8s.CoreV1Api);
  const client = new KubeClient(loadKubeTarget(kube.kubeconfigFile));
  try {
    // Before the signer exists: no signer section.
    assert.equal((await readStackStatus(client, 'etcdns', 'etcdns')).signer, undefined);
    await core.createNamespace({ body: { metadata: { name: 'etcdns' } } });
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'etcdns-dnssec-signer')!;
    await core.createNamespacedConfigMap({ namespace: 'etcdns', body: configMap });
    const service = objects.find((o) => o.kind === 'Service' && o.metadata.name === 'etcdns-dnssec-signer')!;
    for (const p of service.spec.ports as Json[]) p.port = port;
    const created = await core.createNamespacedService({ namespace: 'etcdns', body: service });
    created.status = { loadBalancer: { ingress: [{ ip: '127.0.0.1' }] } };
    await core.replaceNamespacedServiceStatus({ name: 'etcdns-dnssec-signer', namespace: 'etcdns', body: created });

    const { signer } = await readStackStatus(client, 'etcdns', 'etcdns');
    assert.ok(signer?.ok, JSON.stringify(signer));
    assert.equal(signer.value.at, `127.0.0.1:${port}`);
    assert.deepEqual(signer.value.zones, [
      { zone: 'example.org.', ds: { ok: true, value: await keymgrDs('example.org.') } },
    ]);
  } finally {
    client.close();
  }
});
