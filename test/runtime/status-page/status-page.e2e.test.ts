// The status pages in the real headless Chromium (Debian's package): a real `etcdns controller`
// (the real kube-apiserver and etcd, the prod example's two views) and a real `etcdns server`.
// The page loads with JavaScript off, and a search typed into its form finds a name (by name, by
// object, by address); each view shows its names with their records, objects and rules, refused
// and conflicting objects with reason and time. A Service whose annotations carry markup shows it
// as text and runs nothing (JavaScript on); no secret value reaches the page. The test saves a
// screenshot (ETCDNS_SCREENSHOT=docs/images/status-page.png writes docs/operations.md's).
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { controllerKubeconfig, startController, type ControllerHandle } from '../controller/controller-harness.ts';
import { startChromium, type ChromiumHandle } from '../../support/chromium.ts';
import { startEtcd, type EtcdHandle } from '../../support/etcd.ts';
import { startEtcdnsServer, type EtcdnsServerHandle } from '../../support/etcdns-server.ts';
import { startKubeApiserver, type KubeHandle } from '../../support/kube-apiserver.ts';
import { createIngress, createLoadBalancerService } from '../../support/kube-objects.ts';
import { stopAll, waitFor } from '../../support/process.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { repoRoot } from '../../support/tools.ts';
import { prodViewsConfig } from '../../support/prod-views.ts';

const ZONE = 'example.org';
const HOSTNAME = 'external-dns.alpha.kubernetes.io/hostname';
const SECRET_VALUE = 'hunter2-never-on-the-page';
/** Markup in annotations: an element with a handler, a script, both setting a global. */
const HOSTILE_VIEWS = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>';
const HOSTILE_HOSTNAME = `<script>window.pwned=3</script>.${ZONE}`;
const dir = tempDir('status-page');

let kube: KubeHandle;
let etcd: EtcdHandle;
let server: EtcdnsServerHandle;
let controller: ControllerHandle;
let chromium: ChromiumHandle;
let kubeconfig: string;
let statusUrl: string;

before(
  async () => {
    [kube, etcd] = await Promise.all([startKubeApiserver(), startEtcd()]);
    server = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE] });
    const views = prodViewsConfig(dir);
    kubeconfig = await controllerKubeconfig(kube);
    controller = await startController({
      kubeconfigFile: kubeconfig,
      etcdEndpoints: etcd.endpoints,
      ownerId: 'status-page',
      identity: 'etcdns-controller-7d9f6-abcde',
      args: ['--config', views, '--domain-filter', ZONE, '--resync-seconds', '2'],
    });
    statusUrl = `http://127.0.0.1:${controller.httpPort}/status`;
    const core = kube.admin.makeApiClient(k8s.CoreV1Api);
    await core.createNamespacedSecret({
      namespace: 'default',
      body: { metadata: { name: 'shop-db' }, stringData: { password: SECRET_VALUE } },
    });
    // Published in both views (class public), the external one through the prod rule.
    await createIngress(kube.admin, {
      name: 'shop',
      spec: { ingressClassName: 'public', rules: [{ host: `shop.${ZONE}` }] },
      addresses: [{ ip: '10.9.176.213' }],
    });
    await createLoadBalancerService(kube.admin, {
      name: 'api',
      annotations: { [HOSTNAME]: `api.${ZONE}` },
      addresses: [{ ip: '10.9.176.10' }],
    });
    // Opted into the external view with a private address no rule maps: refused there.
    await createLoadBalancerService(kube.admin, {
      name: 'db',
      annotations: { [HOSTNAME]: `db.${ZONE}`, 'etcdns.io/views': 'internal,external' },
      addresses: [{ ip: '192.168.7.7' }],
    });
    // A Service and an Ingress want one name with different addresses: one source wins.
    await createLoadBalancerService(kube.admin, {
      name: 'www',
      annotations: { [HOSTNAME]: `www.${ZONE}` },
      addresses: [{ ip: '10.9.176.30' }],
    });
    await createIngress(kube.admin, {
      name: 'www',
      spec: { rules: [{ host: `www.${ZONE}` }] },
      addresses: [{ ip: '10.9.176.31' }, { ip: '10.9.176.32' }],
    });
    await createLoadBalancerService(kube.admin, {
      name: 'evil',
      annotations: { [HOSTNAME]: `evil.${ZONE},${HOSTILE_HOSTNAME}`, 'etcdns.io/views': `internal,${HOSTILE_VIEWS}` },
      addresses: [{ ip: '10.9.176.66' }],
    });
    await waitFor(
      'the controller found every object and problem',
      async () => {
        const summary = JSON.parse((await controller.http('/status.json')).body) as {
          problems: { reason: string }[];
        };
        const reasons = summary.problems.map((p) => p.reason).sort();
        return ['InvalidAnnotation', 'InvalidHostname', 'PrivateAddressRefused', 'RecordConflict'].every((r) =>
          reasons.includes(r),
        )
          ? true
          : undefined;
      },
      30_000,
      200,
    );
    chromium = await startChromium();
  },
  { timeout: 120_000 },
);
after(stopAll);

test('served as HTML with a policy that forbids scripts; no script element at all', async () => {
  const res = await fetch(statusUrl);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/html/);
  assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
  const body = await res.text();
  assert.doesNotMatch(body, /<script/i);
});

test('without JavaScript: the page loads, a search typed into its form finds a name', async () => {
  const page = chromium.page;
  await page.javascript(false);
  await page.navigate(statusUrl);
  const full = await page.html();
  for (const name of ['shop.example.org', 'api.example.org', 'db.example.org', 'www.example.org'])
    assert.ok(full.includes(name), `${name} on the page`);
  await page.type('input[name=q]', 'shop');
  await page.pressEnter();
  assert.equal(await page.url(), `${statusUrl}?q=shop`);
  const found = await page.html();
  assert.match(found, /<td class="name">shop\.example\.org<\/td>/);
  assert.doesNotMatch(found, /<td class="name">api\.example\.org<\/td>/, 'the search narrowed the names');
  // Both views: internal publishes the load balancer's address, external the mapped one, by the rule.
  assert.match(found, /A 10\.9\.176\.213/);
  assert.match(found, /A 203\.0\.113\.213/);
  assert.match(found, /by lb-to-public/);
  assert.match(found, /ingress\/default\/shop/);
});

test('a search by object and by address', async () => {
  const page = chromium.page;
  await page.navigate(`${statusUrl}?q=${encodeURIComponent('service/default/db')}`);
  const byObject = await page.html();
  assert.match(byObject, /<td class="name">db\.example\.org<\/td>/);
  assert.doesNotMatch(byObject, /<td class="name">shop\.example\.org<\/td>/);
  await page.navigate(`${statusUrl}?q=203.0.113.213`);
  const byAddress = await page.html();
  assert.match(byAddress, /<td class="name">shop\.example\.org<\/td>/);
  assert.doesNotMatch(byAddress, /<td class="name">db\.example\.org<\/td>/);
});

test('refused and conflicting objects with reason and time; the refused name in its view', async () => {
  await chromium.page.navigate(statusUrl);
  const page = await chromium.page.html();
  const row = (reason: string, object: string) =>
    new RegExp(
      `<td class="mono">(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ)</td>\\s*<td class="problem">${reason}</td>\\s*<td class="mono">${object}</td>`,
    );
  const refused = row('PrivateAddressRefused', 'service/default/db').exec(page);
  assert.ok(refused, 'the refusal of db in the external view');
  assert.ok(Math.abs(Date.parse(refused[1]!) - Date.now()) < 120_000, `since ${refused[1]}`);
  assert.ok(row('RecordConflict', 'ingress/default/www').test(page), 'the conflict on www');
  // The Ingress's records were taken by the view, and left out of the answers by the conflict.
  assert.match(page, /ingress\/default\/www<\/span>: A 10\.9\.176\.31 → <span class="refused">left out of the answers/);
  // Names only of objects a view does not take are not listed in it without a search.
  const external = page.slice(page.indexOf('<h2>View external'));
  assert.doesNotMatch(external, /<td class="name">api\.example\.org<\/td>/);
  assert.match(page, /service\/default\/db<\/span>: A 192\.168\.7\.7 → <span class="refused">refused<\/span>/);
});

test('markup from annotations is shown as text and runs nothing (JavaScript on)', async () => {
  const page = chromium.page;
  await page.javascript(true);
  await page.navigate(statusUrl);
  assert.equal(await page.evaluate('window.pwned'), undefined, 'no injected handler or script ran');
  assert.equal(await page.evaluate('document.querySelectorAll("script, img").length'), 0, 'no element was injected');
  const text = await page.evaluate<string>('document.body.innerText');
  assert.ok(text.includes(HOSTILE_VIEWS), 'the views annotation shown as written');
  assert.ok(text.includes(HOSTILE_HOSTNAME), 'the hostname shown as written');
  await page.javascript(false);
});

test('no secret value on the page', async () => {
  const config = load(readFileSync(kubeconfig, 'utf8')) as { users: { user: { token?: string } }[] };
  const token = config.users[0]?.user.token;
  assert.ok(token && token.length > 20, 'the controller has a token to leak');
  for (const url of [statusUrl, `${statusUrl}.json`, `${statusUrl}?q=default`]) {
    const body = await (await fetch(url)).text();
    assert.ok(!body.includes(SECRET_VALUE), `${url}: a Secret's value`);
    assert.ok(!body.includes(token), `${url}: the controller's token`);
  }
});

test("the DNS server's page: zones with serials, a search of its copy", async () => {
  await waitFor('shop in the server', async () =>
    (await server.http('/status?q=shop')).body.includes('10.9.176.213') ? true : undefined,
  );
  const page = chromium.page;
  await page.navigate(`http://127.0.0.1:${server.httpPort}/status`);
  await page.type('input[name=q]', '10.9.176.213');
  await page.pressEnter();
  const found = await page.html();
  assert.match(found, /shop\.example\.org/);
  assert.match(found, /host 10\.9\.176\.213/);
  assert.doesNotMatch(found, /api\.example\.org/);
  assert.match(found, /<td class="name">example\.org<\/td>\s*<td class="mono">\d+<\/td>/);
});

test('with --workers the primary serves a page of its workers (each holds its own copy)', async () => {
  const pool = await startEtcdnsServer({ etcdEndpoints: etcd.endpoints, zones: [ZONE], args: ['--workers', '2'] });
  const res = await fetch(`http://127.0.0.1:${pool.httpPort}/status`);
  assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
  const body = await res.text();
  assert.match(body, /<h1>etcdns server \(2 workers\)<\/h1>/);
  assert.match(body, /<span class="ok">ready<\/span>: worker 0: synced: .*; worker 1: synced: /);
  await pool.stop();
});

test('a screenshot of the page', async () => {
  await chromium.page.navigate(statusUrl);
  const file = join(dir, 'status-page.png');
  const size = await chromium.page.screenshot(file, 1280);
  const png = readFileSync(file);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.equal(png.readUInt32BE(16), 1280, 'width');
  assert.ok(size.height > 600, `height ${size.height}`);
  const target = process.env.ETCDNS_SCREENSHOT;
  if (target) copyFileSync(file, join(repoRoot, target));
  console.log(`# screenshot: ${target ?? file} (${size.width} x ${size.height})`);
});
