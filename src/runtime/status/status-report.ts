// The screen `etcdns status` prints from what it read (stack-status.ts), and the list of what
// needs a person: etcd members down, unhealthy or without leader; DNS server replicas not ready
// or stale; a secondary behind; no controller leader or no recent sync; objects with problems.
// Pure.
import type { ControllerSummary } from '../controller/controller-page.ts';
import type { ServerSummary } from '../dns-server/server-page.ts';
import { sampleValue } from './metric-samples.ts';
import type { Fetched, PodInfo, StackStatus } from './stack-status.ts';

export interface StatusReport {
  lines: string[];
  /** What needs a person, one line each; empty: all is well. */
  attention: string[];
}

/** A secondary behind the zone whose last acknowledgement is older than this needs a person. */
const SECONDARY_GRACE_MS = 5 * 60_000;
/** Problems listed on the screen; the controller's /status lists all. */
const PROBLEM_LINES = 20;
/** etcd's database above this share of its quota needs a person (writes stop at the quota). */
const DB_QUOTA_SHARE = 0.8;

export function statusReport(s: StackStatus, width = 120): StatusReport {
  const lines: string[] = [];
  const attention: string[] = [];
  const now = s.at.getTime();
  const ago = (iso: string | undefined) => (iso ? `${duration(now - Date.parse(iso))} ago` : 'never');
  const podState = (p: PodInfo) =>
    `${p.ready ? 'ready' : `NOT READY (${p.phase})`}${p.restarts > 0 ? `, ${p.restarts} restarts` : ''}`;
  const table = (rows: string[][]) => lines.push(...columns(rows).map((l) => fit(`  ${l}`, width)));

  lines.push(`etcdns stack "${s.name}" in namespace ${s.namespace}, ${s.at.toISOString().slice(0, 19)}Z`, '');

  // etcd
  const replicas = s.etcdReplicas.ok ? s.etcdReplicas.value : undefined;
  const readyMembers = s.etcd.filter((m) => m.pod.ready).length;
  lines.push(`etcd: ${readyMembers} of ${replicas ?? s.etcd.length} members ready`);
  if (replicas !== undefined && s.etcd.length < replicas)
    attention.push(`etcd: ${plural(s.etcd.length, 'member pod')} of ${replicas}`);
  if (!s.etcdReplicas.ok) lines.push(`  (StatefulSet not read: ${s.etcdReplicas.error})`);
  table(
    s.etcd.map((m) => {
      if (!m.pod.ready) attention.push(`etcd member ${m.pod.name} is not ready`);
      if (!m.metrics.ok) {
        attention.push(`etcd member ${m.pod.name}: metrics not read`);
        return [m.pod.name, podState(m.pod), `metrics: ${m.metrics.error}`];
      }
      const has = sampleValue(m.metrics.value, 'etcd_server_has_leader') === 1;
      const is = sampleValue(m.metrics.value, 'etcd_server_is_leader') === 1;
      const size = sampleValue(m.metrics.value, 'etcd_mvcc_db_total_size_in_bytes');
      const quota = sampleValue(m.metrics.value, 'etcd_server_quota_backend_bytes');
      const healthy = m.health.ok && m.health.value;
      if (!has) attention.push(`etcd member ${m.pod.name} has no leader`);
      if (!healthy) attention.push(`etcd member ${m.pod.name} is not healthy`);
      if (size !== undefined && quota && size > DB_QUOTA_SHARE * quota)
        attention.push(`etcd member ${m.pod.name}: database at ${Math.round((100 * size) / quota)}% of its quota`);
      return [
        m.pod.name,
        podState(m.pod),
        is ? 'leader' : has ? 'follower' : 'NO LEADER',
        healthy ? 'healthy' : `UNHEALTHY${m.health.ok ? '' : ` (${m.health.error})`}`,
        size === undefined ? 'db ?' : `db ${bytes(size)}${quota ? ` of ${bytes(quota)}` : ''}`,
      ];
    }),
  );

  // DNS servers, per view
  const views = [...new Set(s.servers.map((r) => r.view))].sort();
  lines.push('');
  if (views.length === 0) {
    lines.push('DNS servers: none found');
    attention.push('no DNS server pods');
  }
  for (const view of views) {
    const replicas = s.servers.filter((r) => r.view === view);
    const ready = replicas.filter((r) => r.pod.ready).length;
    lines.push(`DNS servers, view ${view}: ${ready} of ${replicas.length} ready`);
    if (ready === 0) attention.push(`view ${view}: no DNS server is ready`);
    table(
      replicas.map((r) => {
        if (!r.pod.ready) attention.push(`DNS server ${r.pod.name} is not ready`);
        if (!r.summary.ok) {
          attention.push(`DNS server ${r.pod.name}: status not read`);
          return [r.pod.name, podState(r.pod), `status: ${r.summary.error}`];
        }
        const v = r.summary.value;
        const state = v.readiness.split(':')[0]!;
        if (state === 'stale') attention.push(`DNS server ${r.pod.name} answers from a stale copy: ${v.readiness}`);
        return [
          r.pod.name,
          podState(r.pod),
          state,
          `revision ${v.revision}`,
          `behind etcd <= ${v.watchLag}`,
          plural(v.records, 'record'),
          v.zones.map((z) => `${z.zone.replace(/\.$/, '')} serial ${z.serial}`).join(', '),
        ];
      }),
    );
    secondaries(replicas.flatMap((r) => (r.summary.ok ? [{ pod: r.pod.name, summary: r.summary.value }] : [])));
    memberClusters(replicas.flatMap((r) => (r.summary.ok ? [{ pod: r.pod.name, summary: r.summary.value }] : [])));
  }

  /** A hub's member clusters, as its first replica that read them sees them (docs/multi-cluster.md). */
  function memberClusters(replicas: { pod: string; summary: ServerSummary }[]): void {
    const first = replicas.find((r) => r.summary.hub);
    if (!first) return;
    const hub = first.summary.hub!;
    lines.push(`  member clusters (from ${first.pod}, grace ${hub.graceSeconds} s):`);
    const rows = hub.clusters.map((c) => {
      if (!c.counts)
        attention.push(`member cluster ${c.cluster} does not count: its records are left out of the answers`);
      return [
        c.cluster,
        c.counts ? 'counts' : 'NOT COUNTING',
        c.leased
          ? `lease held ${duration((c.leaseAgeSeconds ?? 0) * 1000)}`
          : c.goneSeconds !== null
            ? `lease gone ${duration(c.goneSeconds * 1000)} ago`
            : 'lease never seen',
        c.refusedNames > 0 ? `${plural(c.refusedNames, 'name')} refused (outside its claims)` : '',
      ];
    });
    lines.push(...columns(rows).map((l) => fit(`    ${l}`, width)));
    if (hub.staleNames.length > 0)
      attention.push(
        `${plural(hub.staleNames.length, 'name')} answered from clusters none of which counts (serve-stale), e.g. ${hub.staleNames[0]}`,
      );
    for (const c of hub.clusters.filter((x) => x.refusedNames > 0)) {
      const first = hub.refused.find((r) => r.cluster === c.cluster);
      attention.push(
        `member cluster ${c.cluster} publishes ${plural(c.refusedNames, 'name')} outside its claims, refused${first ? `, e.g. ${first.reason}` : ''}`,
      );
    }
  }

  function secondaries(replicas: { pod: string; summary: ServerSummary }[]): void {
    const rows: string[][] = [];
    for (const { pod, summary } of replicas)
      for (const zone of summary.zones)
        for (const sec of zone.secondaries.filter((x) => x.kind === 'notify-acked')) {
          const behind = sec.serial < zone.serial;
          const late = behind && now - Date.parse(sec.at) > SECONDARY_GRACE_MS;
          if (late)
            attention.push(
              `secondary ${sec.secondary} acknowledged serial ${sec.serial} of ${zone.zone} (${pod} has ${zone.serial}) ${ago(sec.at)}`,
            );
          // NOTIFYs go to "address:port", transfers come from the address.
          const transfer = zone.secondaries.find(
            (x) => x.kind === 'transferred' && x.secondary === sec.secondary.replace(/:\d+$/, ''),
          );
          rows.push([
            `${zone.zone.replace(/\.$/, '')} -> ${sec.secondary}`,
            `acknowledged ${sec.serial} ${ago(sec.at)}`,
            behind ? `BEHIND (zone ${zone.serial})` : 'current',
            transfer ? `transferred ${transfer.serial} (${transfer.form}) ${ago(transfer.at)}` : '',
            `from ${pod}`,
          ]);
        }
    if (rows.length > 0) {
      lines.push('  secondaries (last NOTIFY acknowledged):');
      lines.push(...columns(rows).map((l) => fit(`    ${l}`, width)));
    }
  }

  // controller
  lines.push('');
  const leaders = s.controllers.filter((c) => c.summary.ok && c.summary.value.leader);
  const lease = s.lease?.ok ? s.lease.value : undefined;
  const leaseExpired =
    lease?.renewTime !== undefined && now - Date.parse(lease.renewTime) > (lease.durationSeconds ?? 15) * 1000;
  lines.push(
    `controller: ${s.controllers.filter((c) => c.pod.ready).length} of ${s.controllers.length} ready; ${
      s.lease === undefined
        ? 'no Lease (one replica)'
        : lease
          ? `Lease held by ${lease.holder ?? 'nobody'}, renewed ${ago(lease.renewTime)}${leaseExpired ? ' (EXPIRED)' : ''}`
          : `Lease not read: ${(s.lease as { error: string }).error}`
    }`,
  );
  if (s.controllers.length === 0) attention.push('no controller pods');
  else if (leaders.length === 0) attention.push('no controller is the leader: nothing is published');
  if (leaseExpired) attention.push(`the controller's Lease expired (held by ${lease?.holder ?? 'nobody'})`);
  table(
    s.controllers.map((c) => {
      if (!c.pod.ready) attention.push(`controller ${c.pod.name} is not ready`);
      if (!c.summary.ok) {
        attention.push(`controller ${c.pod.name}: status not read`);
        return [c.pod.name, podState(c.pod), `status: ${c.summary.error}`];
      }
      const v = c.summary.value;
      const last = v.lastCompleted ? now - Date.parse(v.lastCompleted) : Infinity;
      if (v.leader && last > 2 * v.resyncSeconds * 1000)
        attention.push(`the leading controller ${c.pod.name} completed no sync for ${duration(last)}`);
      return [
        c.pod.name,
        podState(c.pod),
        v.leader ? 'leader' : 'standby',
        `last sync ${ago(v.lastSync?.at)}${v.lastSync ? ` (${v.lastSync.outcome})` : ''}`,
        `last completed ${ago(v.lastCompleted)}`,
        v.views.map((view) => `${view.name}: ${plural(view.names, 'name')}`).join(', '),
      ];
    }),
  );

  // objects with problems: the leader's account (every replica computes the same)
  const source = (leaders[0] ?? s.controllers.find((c) => c.summary.ok))?.summary as
    Fetched<ControllerSummary> | undefined;
  const problems = source?.ok ? source.value.problems : [];
  lines.push('', `objects with problems: ${problems.length}`);
  if (problems.length > 0)
    attention.push(`${plural(problems.length, 'object')} with problems (skipped, refused or in conflict)`);
  table(
    problems
      .slice(0, PROBLEM_LINES)
      .map((p) => [
        p.since.slice(0, 19) + 'Z',
        p.reason,
        `${p.object.kind.toLowerCase()}/${p.object.namespace}/${p.object.name}`,
        p.name ?? '',
        oneLine(p.message),
      ]),
  );
  if (problems.length > PROBLEM_LINES)
    lines.push(`  and ${problems.length - PROBLEM_LINES} more: the controller's /status page lists them all`);

  if (s.signer) {
    lines.push('');
    if (!s.signer.ok) lines.push(`DNSSEC signer: not read: ${s.signer.error}`);
    else {
      lines.push(`DNSSEC signer at ${s.signer.value.at}: the DS records for the parent zones (the signer's CDS)`);
      for (const { zone, ds } of s.signer.value.zones)
        if (!ds.ok) lines.push(fit(`  ${zone}: not read: ${ds.error}`, width));
        else if (ds.value.length === 0) lines.push(`  ${zone}: no CDS yet (not signed yet)`);
        else lines.push(...ds.value.map((d) => `  ${d}`));
    }
  }
  lines.push('');
  if (attention.length === 0) lines.push('nothing needs a person');
  else lines.push('needs a person:', ...attention.map((a) => fit(`  - ${a}`, width)));
  return { lines, attention };
}

/** Rows as left-aligned columns two spaces apart. */
export function columns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Control characters from users' objects never reach the terminal; long lines are cut. */
export function fit(line: string, width: number): string {
  const clean = oneLine(line);
  return clean.length > width ? `${clean.slice(0, width - 3)}...` : clean;
}

function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function duration(ms: number): string {
  if (!Number.isFinite(ms)) return 'ever';
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}
