// Issue 31: delegations as real recursive resolvers see them. etcdns serves example.org from a
// real etcd with two delegations, written as users write them: team.example.org as a DNSEndpoint
// (`team NS ns1.team`, `ns1.team A <address>`, laid out by the controller's own planner) and
// ops.example.org in the SkyDNS form whose dns/ns entry holds the address. A real Knot serves
// both child zones. Unbound and BIND 9 resolve through stub zones to etcdns, with the root
// refused and its hints fake. The authoritative servers have their own loopback addresses of
// one 127.53.N.0/24 and answer on port 53 (resolvers ask glue addresses there; binding it needs
// root); the resolvers listen on 127.0.0.1 and free ports. Nothing leaves this host. Each question is asked through both resolvers and directly of the server
// that holds the answer (Knot for the children, etcdns for the parent): rcode and answer records
// must be equal, and a negative answer's SOA must be the same zone's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { DnsEndpoint } from '../../../../src/runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { planPrefix } from '../../../../src/runtime/controller/plan/plan.ts';
import { startBindResolver } from '../../../support/bind-resolver.ts';
import { digMany, questionKey, type Question } from '../../../support/dig-batch.ts';
import type { DigRecord, DigResult } from '../../../support/dig.ts';
import { startEtcd, type EtcdHandle } from '../../../support/etcd.ts';
import { startEtcdnsServer } from '../../../support/etcdns-server.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { startKnot } from '../../../support/knot.ts';
import { freeLoopbackAddresses, freePort } from '../../../support/ports.ts';
import { stopAll } from '../../../support/process.ts';
import type { ResolverHandle } from '../../../support/resolver.ts';
import { startUnbound } from '../../../support/unbound.ts';

after(stopAll);

const PREFIX = '/delegation';
const DNS_PORT = 53;
const TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'NS', 'SOA'];

const teamZone = (ns: string) => `$ORIGIN team.example.org.
$TTL 300
@          SOA   ns1 hostmaster 1 3600 600 86400 60
@          NS    ns1
@          TXT   "the team zone"
@          MX    10 mail
ns1        A     ${ns}
www        A     192.0.2.10
www        AAAA  2001:db8::10
mail       A     192.0.2.11
txt        TXT   "from the child"
_http._tcp SRV   10 50 80 www
alias      CNAME www
deep.sub   A     192.0.2.12
`;
const TEAM_NAMES = ['', 'ns1.', 'www.', 'mail.', 'txt.', '_http._tcp.', 'alias.', 'deep.sub.', 'sub.'].map(
  (l) => `${l}team.example.org.`,
);

const opsZone = (ns: string) => `$ORIGIN ops.example.org.
$TTL 300
@          SOA   ns1.ns.dns hostmaster 1 3600 600 86400 60
@          NS    ns1.ns.dns
ns1.ns.dns A     ${ns}
www        A     192.0.2.20
www        TXT   "ops"
`;
const OPS_NAMES = ['', 'ns1.ns.dns.', 'www.'].map((l) => `${l}ops.example.org.`);

const PARENT_NAMES = ['', 'www.', 'api.', 'txt.', 'mail.'].map((l) => `${l}example.org.`);

/** The parent's records as a platform team writes them: one DNSEndpoint, the delegation in it. */
function parentEndpoint(childServer: string): DnsEndpoint {
  return {
    apiVersion: 'externaldns.k8s.io/v1alpha1',
    kind: 'DNSEndpoint',
    metadata: { name: 'parent', namespace: 'dns', uid: 'uid-parent', generation: 1 },
    spec: {
      endpoints: [
        { dnsName: 'www.example.org', recordType: 'A', targets: ['192.0.2.1'] },
        { dnsName: 'www.example.org', recordType: 'AAAA', targets: ['2001:db8::1'] },
        { dnsName: 'api.example.org', recordType: 'CNAME', targets: ['www.example.org'] },
        { dnsName: 'txt.example.org', recordType: 'TXT', targets: ['from the parent'] },
        { dnsName: 'mail.example.org', recordType: 'MX', targets: ['10 www.example.org'] },
        { dnsName: 'team.example.org', recordType: 'NS', targets: ['ns1.team.example.org'] },
        { dnsName: 'ns1.team.example.org', recordType: 'A', targets: [childServer] },
      ],
    },
  };
}

/** The etcd entries the controller writes for it, plus the hand-written ones of the SkyDNS form. */
function parentEntries(parentServer: string, childServer: string): Map<string, string> {
  const sources = desiredRecords({ dnsEndpoints: [parentEndpoint(childServer)] }, sourceOptions({ sources: ['crd'] }));
  assert.deepEqual(sources.problems, []);
  const plan = planPrefix({
    prefix: PREFIX,
    ownerId: 'delegation-test',
    policy: 'sync',
    apexes: new Set(['example.org.']),
    desired: sources.records,
    current: [],
  });
  assert.deepEqual(plan.conflicts, []);
  const entries = new Map(plan.creates.map((c) => [c.key, c.after!]));
  entries.set(`${PREFIX}/org/example/dns/ns/ns1`, JSON.stringify({ host: parentServer }));
  entries.set(`${PREFIX}/org/example/ops/dns/ns/ns1`, JSON.stringify({ host: childServer }));
  return entries;
}

const questionsOf = (names: readonly string[], types = TYPES): Question[] =>
  names.flatMap((name) => types.map((type) => ({ name, type })));

/** What a resolver passes on of an answer: rcode, the answer records (TTLs count down), a negative answer's zone. */
function seen(r: DigResult) {
  const record = (a: DigRecord) => `${a.name.toLowerCase()} ${a.type} ${a.data.toLowerCase()}`;
  return {
    status: r.status,
    answer: r.answer.map(record).sort(),
    soaOf: r.answer.length === 0 ? r.authority.find((a) => a.type === 'SOA')?.name.toLowerCase() : undefined,
  };
}

let etcd: EtcdHandle;
let addresses: { parent: string; child: string; root: string };
let resolvers: Record<'Unbound' | 'BIND', ResolverHandle>;

before(async () => {
  const [parent, child, root] = await freeLoopbackAddresses(3, DNS_PORT);
  addresses = { parent: parent!, child: child!, root: root! };
  etcd = await startEtcd();
  const kv = etcd.client();
  for (const [key, value] of parentEntries(addresses.parent, addresses.child)) await kv.put(key).value(value);
  await startEtcdnsServer({
    etcdEndpoints: etcd.endpoints,
    zones: ['example.org'],
    prefix: PREFIX,
    address: addresses.parent,
    port: DNS_PORT,
  });
  await startKnot({
    zones: [
      { name: 'team.example.org.', text: teamZone(addresses.child) },
      { name: 'ops.example.org.', text: opsZone(addresses.child) },
    ],
    address: addresses.child,
    port: DNS_PORT,
  });
  const stub = {
    address: '127.0.0.1',
    stubZones: [{ name: 'example.org.', addresses: [{ address: addresses.parent }] }],
    rootHint: addresses.root,
  };
  resolvers = {
    Unbound: await startUnbound({ ...stub, port: await freePort() }),
    BIND: await startBindResolver({ ...stub, port: await freePort() }),
  };
});

describe('delegated zones resolve through real resolvers (Unbound, BIND 9)', () => {
  const child = () => ({
    questions: [
      ...questionsOf([...TEAM_NAMES, ...OPS_NAMES]),
      ...questionsOf(['nope.team.example.org.', 'a.nope.ops.example.org.'], ['A']),
    ],
    server: addresses.child,
  });
  const parent = () => ({
    questions: [
      ...questionsOf(PARENT_NAMES),
      ...questionsOf(['nope.example.org.'], ['A']),
      // DS at the cuts is the parent's; of a name that is no cut, a type like any other.
      ...questionsOf(['team.example.org.', 'ops.example.org.', 'www.example.org.'], ['DS']),
    ],
    server: addresses.parent,
  });

  for (const name of ['Unbound', 'BIND'] as const) {
    test(`${name}: every name and type of both child zones, NXDOMAIN below them, DS at the cuts and the parent's names as their servers answer`, async () => {
      const asked = [child(), parent()];
      let questions = 0;
      const diffs: string[] = [];
      for (const { questions: qs, server } of asked) {
        const [direct, through] = await Promise.all([
          digMany(DNS_PORT, qs, { server }),
          digMany(resolvers[name].port, qs, { server: resolvers[name].address, recurse: true }),
        ]);
        for (const q of qs) {
          const key = questionKey(q);
          const [want, got] = [seen(direct.get(key)!), seen(through.get(key)!)];
          questions += 1;
          if (JSON.stringify(want) !== JSON.stringify(got))
            diffs.push(`${key}: direct ${JSON.stringify(want)}, through ${name} ${JSON.stringify(got)}`);
        }
      }
      console.log(`${name}: ${questions} questions, ${questions - diffs.length} answered as their server answers them`);
      assert.deepEqual(diffs, [], `${name}:\n${diffs.join('\n')}\n${resolvers[name].process.logs().slice(-3000)}`);
    });

    test(`${name}: the child zones' data, the child's NXDOMAIN, the parent's NODATA for DS at the cuts`, async () => {
      const r = resolvers[name];
      const ask = (q: Question) =>
        digMany(r.port, [q], { server: r.address, recurse: true }).then((m) => m.get(questionKey(q))!);
      const www = seen(await ask({ name: 'www.team.example.org.', type: 'A' }));
      assert.deepEqual(www, { status: 'NOERROR', answer: ['www.team.example.org. A 192.0.2.10'], soaOf: undefined });
      const ops = seen(await ask({ name: 'www.ops.example.org.', type: 'A' }));
      assert.deepEqual(ops, { status: 'NOERROR', answer: ['www.ops.example.org. A 192.0.2.20'], soaOf: undefined });
      const nx = seen(await ask({ name: 'nope.team.example.org.', type: 'A' }));
      assert.deepEqual(nx, { status: 'NXDOMAIN', answer: [], soaOf: 'team.example.org.' });
      for (const cut of ['team.example.org.', 'ops.example.org.']) {
        const ds = seen(await ask({ name: cut, type: 'DS' }));
        assert.deepEqual(ds, { status: 'NOERROR', answer: [], soaOf: 'example.org.' }, `${cut} DS`);
      }
    });
  }
});
