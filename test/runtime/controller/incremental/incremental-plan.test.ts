// The incremental planner against the full pipeline (sources -> views -> planPrefix over the whole
// prefix), pure and in memory: after every Service, Ingress or EndpointSlice event, the changes
// planned for the names the changed object touched equal the full plan's changes, the records
// and problems the planner keeps equal the full plan's, and once applied a full plan is empty.
// One property over random event sequences, then table rows for the edges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { KubernetesObject, V1EndpointSlice, V1Ingress, V1Node, V1Service } from '@kubernetes/client-node';
import type { ClusterKind } from '../../../../src/config/source-kinds.ts';
import type { Policy } from '../../../../src/config/controller-config.ts';
import { canonicalName } from '../../../../src/dns/dns-name.ts';
import type { ViewInput } from '../../../../src/config/view-config.ts';
import { resourceId, type DesiredRecord, type Problem } from '../../../../src/runtime/controller/desired-record.ts';
import type { ClusterObjects, ObjectKey } from '../../../../src/runtime/controller/incremental/cluster-objects.ts';
import { IncrementalPlanner } from '../../../../src/runtime/controller/incremental/incremental-planner.ts';
import type { CurrentEntry } from '../../../../src/runtime/controller/plan/current-entries.ts';
import { isEmptyPlan, planPrefix, type Plan } from '../../../../src/runtime/controller/plan/plan.ts';
import { desiredRecords } from '../../../support/full-pipeline.ts';
import { sourceOptions } from '../../../../src/runtime/controller/sources/source-options.ts';
import { controllerViews } from '../../../../src/runtime/controller/views/controller-views.ts';
import { sourceObjects } from '../../../support/cluster-snapshot.ts';
import { compileViews, viewRecords, type CompiledView } from '../../../../src/runtime/controller/views/view-records.ts';

const OWNER = 'me';
const ZONE = 'example.org';
// The zone apex too: its records are laid out below dns/apex/, and a CNAME there is refused.
const HOSTS = ['a', 'b', 'shared', 'x.a', 'taken', '*.w', 'bad..name'].map((h) => `${h}.${ZONE}`).concat(ZONE);
const IPS = ['10.0.0.1', '10.0.0.2', '10.9.176.5', '192.0.2.7', '2001:db8::1'];
const NAMES = ['s0', 's1', 's2', 's3'];
const LABEL = 'kubernetes.io/service-name';

const VIEWS: ViewInput[] = [
  { name: 'internal', prefix: '/skydns' },
  {
    name: 'external',
    prefix: '/skydns-ext',
    exposure: 'external',
    selection: { mode: 'opt-in', labels: { expose: 'yes' }, ingressClasses: ['public'] },
    rules: [
      { name: 'map', match: {}, action: { mapCidr: { from: '10.9.176.0/24', to: '203.0.113.0/24' } } },
      { name: 'lab', match: { targetCidrs: ['10.0.0.0/24'] }, action: { replace: ['198.51.100.1'] } },
    ],
  },
];

type Event =
  | {
      op: 'service';
      name: string;
      spec: 'lb' | 'headless' | 'external-name' | 'node-port';
      hosts: string[];
      ips: string[];
      ttl?: string;
      expose: boolean;
    }
  | { op: 'ingress'; name: string; hosts: string[]; ips: string[]; className?: string; ttl?: string }
  | { op: 'slice'; name: string; service: string; pods: { ip: string; host?: string; ready: boolean }[] }
  | { op: 'delete'; kind: 'service' | 'ingress' | 'slice'; name: string };

const NODES: V1Node[] = [
  { metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '10.1.0.1' }] } },
  { metadata: { name: 'n2' }, status: { addresses: [{ type: 'ExternalIP', address: '192.0.2.2' }] } },
];

/** The cluster as plain maps; `apply` returns the objects whose records may have changed. */
class Cluster implements ClusterObjects {
  readonly svcs = new Map<string, V1Service>();
  readonly ings = new Map<string, V1Ingress>();
  readonly slices = new Map<string, V1EndpointSlice>();

  objects(kind: ClusterKind): Iterable<KubernetesObject> {
    if (kind === 'Node') return NODES;
    return kind === 'Service' ? this.svcs.values() : kind === 'Ingress' ? this.ings.values() : [];
  }
  object(kind: ClusterKind, _ns: string | undefined, name: string) {
    return kind === 'Service' ? this.svcs.get(name) : kind === 'Ingress' ? this.ings.get(name) : undefined;
  }
  endpointSlices(_ns: string, service: string) {
    return [...this.slices.values()].filter((s) => s.metadata?.labels?.[LABEL] === service);
  }
  unseenResources() {
    return new Set<string>();
  }

  apply(e: Event): ObjectKey[] {
    const key = (kind: ObjectKey['kind'], name: string): ObjectKey => ({ kind, namespace: 'default', name });
    const annotations = (hosts: string[], ttl: string | undefined) => ({
      'external-dns.kubernetes.io/hostname': hosts.join(','),
      ...(ttl !== undefined ? { 'external-dns.kubernetes.io/ttl': ttl } : {}),
    });
    const lb = (ips: string[]) => ({ loadBalancer: { ingress: ips.map((ip) => ({ ip })) } });
    switch (e.op) {
      case 'service': {
        const spec: V1Service['spec'] =
          e.spec === 'lb'
            ? { type: 'LoadBalancer' }
            : e.spec === 'headless'
              ? { type: 'ClusterIP', clusterIP: 'None' }
              : e.spec === 'node-port'
                ? { type: 'NodePort', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] }
                : { type: 'ExternalName', externalName: 'target.elsewhere.net' };
        this.svcs.set(e.name, {
          metadata: {
            name: e.name,
            namespace: 'default',
            uid: `uid-${e.name}`,
            labels: e.expose ? { expose: 'yes' } : {},
            annotations: annotations(e.hosts, e.ttl),
          },
          spec,
          status: lb(e.ips),
        });
        return [key('Service', e.name)];
      }
      case 'ingress':
        this.ings.set(e.name, {
          metadata: { name: e.name, namespace: 'default', uid: `uid-i-${e.name}`, annotations: annotations([], e.ttl) },
          spec: {
            ...(e.className ? { ingressClassName: e.className } : {}),
            rules: e.hosts.map((host) => ({ host })),
          },
          status: lb(e.ips),
        });
        return [key('Ingress', e.name)];
      case 'slice': {
        const before = this.slices.get(e.name)?.metadata?.labels?.[LABEL];
        this.slices.set(e.name, {
          metadata: { name: e.name, namespace: 'default', labels: { [LABEL]: e.service } },
          addressType: 'IPv4',
          endpoints: e.pods.map((p) => ({
            addresses: [p.ip],
            ...(p.host ? { hostname: p.host } : {}),
            conditions: { ready: p.ready },
            nodeName: 'n1',
          })),
        });
        return [...new Set([before, e.service])].filter((s) => s !== undefined).map((s) => key('Service', s));
      }
      case 'delete': {
        if (e.kind === 'slice') {
          const before = this.slices.get(e.name)?.metadata?.labels?.[LABEL];
          this.slices.delete(e.name);
          return before ? [key('Service', before)] : [];
        }
        (e.kind === 'service' ? this.svcs : this.ings).delete(e.name);
        return [key(e.kind === 'service' ? 'Service' : 'Ingress', e.name)];
      }
    }
  }
}

/** etcd of one prefix as a map; applying a plan bumps the revision as etcd would. */
class Prefix {
  readonly entries = new Map<string, CurrentEntry>();
  private revision = 1;

  constructor(foreign: Record<string, string> = {}) {
    for (const [key, value] of Object.entries(foreign)) this.put(key, value);
  }
  put(key: string, value: string) {
    this.entries.set(key, { key, value, modRevision: String(++this.revision) });
  }
  all() {
    return [...this.entries.values()];
  }
  under(keys: string[]) {
    return this.all().filter((e) => keys.some((k) => e.key === k || e.key.startsWith(`${k}/`)));
  }
  apply(plan: Plan) {
    for (const c of [...plan.deletes, ...plan.updates, ...plan.creates]) {
      if (c.after === undefined) this.entries.delete(c.key);
      else this.put(c.key, c.after);
    }
  }
}

const FOREIGN = {
  '/skydns/org/example/taken/0000aaaa': JSON.stringify({ host: '10.7.7.7', owner: 'someone-else' }),
  '/skydns/org/example/shared-hand': JSON.stringify({ host: '10.7.7.8' }),
  '/skydns-ext/org/example/b': 'not json',
};

const changes = (p: Plan) =>
  [...p.creates, ...p.updates, ...p.deletes]
    .map((c) => `${c.key} ${c.before?.modRevision ?? '-'} ${c.after ?? '-'}`)
    .sort();
const typeCounts = (rs: readonly DesiredRecord[]) =>
  [...rs.reduce((m, r) => m.set(r.type, (m.get(r.type) ?? 0) + 1), new Map<string, number>())].sort();
const problemLines = (ps: readonly Problem[]) =>
  ps.map((p) => `${p.reason} ${resourceId(p.object)} ${p.name ?? '-'} ${p.message}`).sort();

interface Setup {
  views: CompiledView[];
  policy: Policy;
}

/** PTRs too: the internal view's reverse zones cover some of the addresses, the external's its mapped ones. */
const REVERSE_ZONES = [
  { network: '10.0.0.0/24' },
  { network: '192.0.2.0/24', views: ['internal'] },
  { network: '203.0.113.0/24', views: ['external'] },
];

function setup(views: ViewInput[] = VIEWS, policy: Policy = 'sync'): Setup {
  return { views: compileViews(controllerViews({ views }), REVERSE_ZONES), policy };
}

interface State {
  cluster: Cluster;
  prefixes: Prefix[];
}

/**
 * Runs events through both planners, checking them against each other after every step. A new
 * planner starts with a full plan, as the controller does: `state` carries the cluster and etcd
 * over from a run with other settings (a restart with changed views).
 */
function check(events: Event[], s: Setup = setup(), state?: State): State {
  const options = sourceOptions({ domainFilter: [ZONE] });
  const cluster = state?.cluster ?? new Cluster();
  const prefixes =
    state?.prefixes ??
    s.views.map(
      (v) =>
        new Prefix(Object.fromEntries(Object.entries(FOREIGN).filter(([k]) => k.startsWith(`${v.config.prefix}/`)))),
    );
  const planner = new IncrementalPlanner(s.views, options, { ownerId: OWNER, policy: s.policy });
  const full = () => {
    const snapshot = {
      services: [...cluster.svcs.values()],
      ingresses: [...cluster.ings.values()],
      endpointSlices: [...cluster.slices.values()],
      nodes: NODES,
    };
    const sources = desiredRecords(snapshot, options);
    const split = viewRecords(s.views, sources.records, sourceObjects(snapshot));
    const plans = s.views.map((v, i) =>
      planPrefix({
        prefix: v.config.prefix,
        ownerId: OWNER,
        policy: s.policy,
        apexes: new Set([canonicalName(ZONE)]),
        desired: split.views[i]!.records,
        current: prefixes[i]!.all(),
      }),
    );
    return { plans, problems: [...sources.problems, ...split.problems, ...plans.flatMap((p) => p.conflicts)] };
  };
  /**
   * The periodic resync, as a full plan: it writes nothing, or once more where the full planner
   * itself takes two rounds (objects sharing a name and type with different ttls: the ttl follows
   * the resource owning the first key, which can change once the second resource's key is
   * written); after that round nothing.
   */
  const resync = (where: string) => {
    const again = planner.planAll(prefixes.map((p) => p.all())).plans;
    const rewritten = prefixes.filter((p, i) => {
      if (isEmptyPlan(again[i]!)) return false;
      for (const c of [...again[i]!.creates, ...again[i]!.deletes])
        assert.fail(`a resync only ever rewrites a ttl, not ${c.key} (${where})`);
      p.apply(again[i]!);
      return true;
    });
    if (rewritten.length === 0) return;
    const second = planner.planAll(prefixes.map((p) => p.all())).plans;
    prefixes.forEach((p, i) => {
      if (rewritten.includes(p)) assert.deepEqual(changes(second[i]!), [], `second resync, ${where}`);
    });
  };
  planner.rebuild(cluster);
  planner.planAll(prefixes.map((p) => p.all())).plans.forEach((plan, i) => prefixes[i]!.apply(plan));
  resync('start');
  for (const [step, event] of events.entries()) {
    const touched = planner.update(cluster.apply(event), cluster);
    const reference = full();
    const result = planner.planNames(touched, (i, keys) => prefixes[i]!.under(keys));
    s.views.forEach((v, i) => {
      const plan = result.plans[i]!;
      const where = `step ${step} (${JSON.stringify(event)}), view ${v.config.name}`;
      assert.deepEqual(changes(plan), changes(reference.plans[i]!), `changes, ${where}`);
      const published = new Set([...reference.plans[i]!.records.map((r) => r.name), ...HOSTS.map(canonicalName)]);
      for (const name of published) {
        const { answers: kept } = planner.viewsOfName(name)[i]!;
        const answers = kept.map((a) => `${name} ${a.type} ${a.target} ${a.ttl ?? '-'} ${a.resource}`);
        const wanted = reference.plans[i]!.records.filter((r) => r.name === name).map(
          (r) => `${name} ${r.type} ${r.target} ${r.ttl ?? '-'} ${resourceId(r.object)}`,
        );
        assert.deepEqual(answers.sort(), wanted.sort(), `records of ${name}, ${where}`);
      }
      assert.deepEqual(
        [...result.recordCounts[i]!.entries()].filter(([, n]) => n > 0).sort(),
        typeCounts(reference.plans[i]!.records),
        `record counts, ${where}`,
      );
      prefixes[i]!.apply(plan);
    });
    assert.deepEqual(problemLines(result.problems), problemLines(reference.problems), `problems, step ${step}`);
    resync(`step ${step}`);
  }
  return { cluster, prefixes };
}

const ip = fc.constantFrom(...IPS);
const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.record(
    {
      op: fc.constant('service' as const),
      name: fc.constantFrom(...NAMES),
      spec: fc.constantFrom('lb' as const, 'headless' as const, 'external-name' as const, 'node-port' as const),
      hosts: fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 2 }),
      ips: fc.uniqueArray(ip, { maxLength: 2 }),
      ttl: fc.constantFrom('60', '300', 'soon'),
      expose: fc.boolean(),
    },
    { requiredKeys: ['op', 'name', 'spec', 'hosts', 'ips', 'expose'] },
  ),
  fc.record(
    {
      op: fc.constant('ingress' as const),
      name: fc.constantFrom(...NAMES),
      hosts: fc.uniqueArray(fc.constantFrom(...HOSTS), { minLength: 1, maxLength: 2 }),
      ips: fc.uniqueArray(ip, { maxLength: 2 }),
      className: fc.constantFrom('public', 'private'),
      ttl: fc.constantFrom('60', '300'),
    },
    { requiredKeys: ['op', 'name', 'hosts', 'ips'] },
  ),
  fc.record({
    op: fc.constant('slice' as const),
    name: fc.constantFrom('e0', 'e1', 'e2'),
    service: fc.constantFrom(...NAMES),
    pods: fc.array(
      fc.record({ ip, host: fc.constantFrom('p0', 'p1'), ready: fc.boolean() }, { requiredKeys: ['ip', 'ready'] }),
      { maxLength: 3 },
    ),
  }),
  fc.record({
    op: fc.constant('delete' as const),
    kind: fc.constantFrom('service' as const, 'ingress' as const, 'slice' as const),
    name: fc.constantFrom(...NAMES, 'e0', 'e1', 'e2'),
  }),
);

test('property: after every event the incremental plan equals the full plan', () => {
  fc.assert(
    fc.property(
      fc.array(eventArb, { maxLength: 25 }),
      fc.constantFrom<Policy>('sync', 'upsert-only', 'create-only'),
      (events, policy) => {
        check(events, setup(VIEWS, policy));
      },
    ),
    { numRuns: 300 },
  );
});

const lbService = (name: string, hosts: string[], ips: string[], expose = false): Event => ({
  op: 'service',
  name,
  spec: 'lb',
  hosts,
  ips,
  expose,
});

const rows: [string, Event[], Setup?][] = [
  [
    'two objects claim one name (a Service and an Ingress), then the winner goes',
    [
      lbService('s0', ['shared.example.org'], ['10.0.0.2']),
      { op: 'ingress', name: 's1', hosts: ['shared.example.org'], ips: ['10.0.0.1'] },
      { op: 'delete', kind: 'service', name: 's0' },
    ],
  ],
  [
    'two Services claim one name with different ttls',
    [
      { ...lbService('s0', ['shared.example.org'], ['10.0.0.2']), ttl: '60' } as Event,
      { ...lbService('s1', ['shared.example.org'], ['10.0.0.1']), ttl: '300' } as Event,
      { op: 'delete', kind: 'service', name: 's0' },
    ],
  ],
  [
    'an object moves from one name to another, leaving nothing behind',
    [lbService('s0', ['a.example.org'], ['10.0.0.1']), lbService('s0', ['b.example.org'], ['10.0.0.1'])],
  ],
  [
    'a CNAME meets an address at one name',
    [
      { op: 'service', name: 's0', spec: 'external-name', hosts: ['a.example.org'], ips: [], expose: false },
      lbService('s1', ['a.example.org'], ['10.0.0.1']),
      { op: 'delete', kind: 'service', name: 's1' },
    ],
  ],
  [
    // Found by the property test: the conflict message listed the other types in arrival order.
    'a CNAME meets an AAAA and an A that came in the other order',
    [
      { op: 'ingress', name: 's0', hosts: ['a.example.org'], ips: ['2001:db8::1'] },
      lbService('s3', ['a.example.org'], ['10.0.0.1']),
      { op: 'service', name: 's0', spec: 'external-name', hosts: ['a.example.org'], ips: [], expose: false },
    ],
  ],
  [
    'a name held by another owner, and a parent name with hand-written data',
    [
      lbService('s0', ['taken.example.org', 'x.a.example.org'], ['10.0.0.1']),
      lbService('s1', ['a.example.org'], ['10.0.0.2']),
    ],
  ],
  [
    "an object joins the external view and its address moves into a rule's range",
    [
      lbService('s0', ['a.example.org'], ['192.0.2.7']),
      lbService('s0', ['a.example.org'], ['192.0.2.7'], true),
      lbService('s0', ['a.example.org'], ['10.9.176.5'], true),
      lbService('s0', ['a.example.org'], ['10.0.0.1'], true),
      lbService('s0', ['a.example.org'], ['10.0.0.1'], false),
    ],
  ],
  [
    'a headless Service follows its EndpointSlices, one of which moves to another Service',
    [
      { op: 'service', name: 's0', spec: 'headless', hosts: ['a.example.org'], ips: [], expose: false },
      { op: 'service', name: 's1', spec: 'headless', hosts: ['b.example.org'], ips: [], expose: false },
      { op: 'slice', name: 'e0', service: 's0', pods: [{ ip: '10.0.0.1', host: 'p0', ready: true }] },
      { op: 'slice', name: 'e0', service: 's1', pods: [{ ip: '10.0.0.2', host: 'p1', ready: true }] },
      { op: 'delete', kind: 'slice', name: 'e0' },
    ],
  ],
];

for (const [name, events, s] of rows) test(name, () => void check(events, s));

test('a view rule change: the new planner plans in full, then events again equal the full plan', () => {
  const state = check([
    lbService('s0', ['a.example.org'], ['10.0.0.1'], true),
    lbService('s1', ['b.example.org'], ['10.9.176.5'], true),
  ]);
  const dropA: ViewInput = {
    ...VIEWS[1]!,
    rules: [{ name: 'drop-a', match: { names: ['a.example.org'] }, action: { drop: true } }, ...VIEWS[1]!.rules!],
  };
  check(
    [lbService('s0', ['a.example.org'], ['10.0.0.2'], true), lbService('s1', ['a.example.org'], ['10.0.0.1'], true)],
    setup([VIEWS[0]!, dropA]),
    state,
  );
});
