// Table tests of reading an exec credential plugin's output (client.authentication.k8s.io).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExecCredential, type IssuedCredential } from '../../../src/runtime/kube/kube-credentials.ts';
import type { ExecPlugin } from '../../../src/runtime/kube/kube-target.ts';

const plugin: ExecPlugin = { apiVersion: 'client.authentication.k8s.io/v1', command: 'login', args: [], env: [] };
const cred = (status: unknown, apiVersion = plugin.apiVersion, kind = 'ExecCredential') =>
  JSON.stringify({ apiVersion, kind, status });

const cases: { name: string; stdout: string; want: IssuedCredential | RegExp }[] = [
  { name: 'a token without expiry', stdout: cred({ token: 't' }), want: { token: 't' } },
  {
    name: 'a token with expiry',
    stdout: cred({ token: 't', expirationTimestamp: '2030-01-02T03:04:05Z' }),
    want: { token: 't', expiresAt: Date.UTC(2030, 0, 2, 3, 4, 5) },
  },
  {
    name: 'a client certificate',
    stdout: cred({ clientCertificateData: 'CERT', clientKeyData: 'KEY' }),
    want: { clientCertificate: { cert: 'CERT', key: 'KEY' } },
  },
  { name: 'not JSON', stdout: 'Please log in', want: /exec plugin login: did not print an ExecCredential/ },
  { name: 'another kind', stdout: cred({ token: 't' }, plugin.apiVersion, 'Status'), want: /printed kind "Status"/ },
  {
    name: 'another version',
    stdout: cred({ token: 't' }, 'client.authentication.k8s.io/v1beta1'),
    want: /printed apiVersion "client\.authentication\.k8s\.io\/v1beta1", but the kubeconfig asks for .*\/v1$/,
  },
  { name: 'no credential', stdout: cred({}), want: /gave neither status\.token nor a client certificate/ },
  { name: 'a key without its certificate', stdout: cred({ clientKeyData: 'KEY' }), want: /gave neither/ },
  {
    name: 'an unreadable expiry',
    stdout: cred({ token: 't', expirationTimestamp: 'soon' }),
    want: /status\.expirationTimestamp "soon" is not a time/,
  },
];

for (const c of cases) {
  test(`exec credential: ${c.name}`, () => {
    if (c.want instanceof RegExp) assert.throws(() => parseExecCredential(c.stdout, plugin), c.want);
    else assert.deepEqual(parseExecCredential(c.stdout, plugin), c.want);
  });
}
