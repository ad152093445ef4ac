// The DNS server's status page (/status, and its summary as /status.json): its copy of the
// records (state, revision, lag behind etcd), each zone's serial with what each secondary last
// acknowledged and was transferred, and a search of the copy by name or address: each matching
// key with its value. (The copy keeps what answers need, not the entries' owner and object: the
// controller's page has those.) The search walks the copy in slices, yielding between them, so a
// search of a large copy does not hold up answers; it shows at most ROW_LIMIT keys.
import { setImmediate } from 'node:timers/promises';
import type { Readiness } from '../shared/http-server.ts';
import type { SkyDnsEntry } from '../../skydns/skydns-entry.ts';
import { childrenOf, type IndexNode, type RecordIndex } from './store/record-index.ts';
import type { TransferStatus } from './transfer/transfer-status.ts';
import type { HubSummary } from './cluster-hub.ts';
import { clusterCells, explanationSummary, type NameExplanation } from '../status-page/name-explanation-text.ts';
import { html, type Html } from '../status-page/html.ts';
import { ROW_LIMIT, statusPage, time } from '../status-page/status-layout.ts';
import { matches, shownName } from '../status-page/status-search.ts';

export interface ServerStatusSource {
  readiness(): Readiness;
  /** The copy served now. */
  index(): RecordIndex;
  /** Canonical zone apexes. */
  zones: readonly string[];
  watchLag(): number;
  secondsSinceContact(): number;
  transfers: Pick<TransferStatus, 'entries'>;
  /** A hub: its member clusters (cluster-hub.ts). */
  hub?: () => HubSummary;
  /** A hub: why each member cluster answers a canonical name, or not; undefined outside the zones. */
  explain?: (name: string, client: string | undefined) => NameExplanation | undefined;
}

/** Nodes visited before the walk yields to answers: a search of 100,000 keys took 52-134 ms here, 100 slices. */
const SLICE = 2000;

interface Found {
  key: string;
  name: string;
  entry: SkyDnsEntry;
}

/** Keys whose name or value matches, in the order of the copy's tree; at most limit + 1. */
export async function searchCopy(index: RecordIndex, term: string, limit = ROW_LIMIT): Promise<Found[]> {
  const found: Found[] = [];
  // Depth first, one child at a time (a name can have 100,000s of children), each node's name
  // made from its parent's as the walk goes down. A watch event may change the tree between
  // slices: a Map's iterator then still visits every child that stays.
  const open: { children: Iterator<IndexNode>; name: string }[] = [];
  const visit = (node: IndexNode, name: string) => {
    const e = node.entry;
    if (e && matches(term, name, e.host, e.text)) {
      const key = node.key;
      found.push({ key, name: index.nameOf(key), entry: e });
    }
    open.push({ children: childrenOf(node)[Symbol.iterator](), name });
  };
  const root = index.find([]);
  if (root) visit(root, '');
  let visited = 0;
  while (open.length > 0 && found.length <= limit) {
    const top = open[open.length - 1]!;
    const next = top.children.next();
    if (next.done) {
      open.pop();
      continue;
    }
    visit(next.value, top.name ? `${next.value.label}.${top.name}` : next.value.label);
    if (++visited % SLICE === 0) await setImmediate();
  }
  return found;
}

/** What /status.json says: the copy and each zone's serial with its secondaries (`etcdns status`). */
export interface ServerSummary {
  ready: boolean;
  readiness: string;
  prefix: string;
  records: number;
  revision: number;
  /** etcd's revision minus the copy's at the last probe: an upper bound (see the alerts' runbook). */
  watchLag: number;
  secondsSinceContact: number | null;
  zones: {
    zone: string;
    serial: number;
    secondaries: {
      secondary: string;
      kind: 'notify-acked' | 'transferred';
      serial: number;
      at: string;
      form?: string;
    }[];
  }[];
  /** A hub: each member cluster (lease age, whether it counts) and the names answered stale. */
  hub?: HubSummary;
  /** A hub asked `?name=`: why each member cluster answers it, or not. */
  explain?: NameExplanation;
}

export function serverSummary(source: ServerStatusSource): ServerSummary {
  const index = source.index();
  const readiness = source.readiness();
  const seen = source.transfers.entries();
  const contact = source.secondsSinceContact();
  return {
    ready: readiness.ready,
    readiness: readiness.detail,
    prefix: index.prefix,
    records: index.entryCount,
    revision: index.revision,
    watchLag: source.watchLag(),
    secondsSinceContact: Number.isFinite(contact) ? Math.round(contact) : null,
    zones: [...source.zones].sort().map((zone) => ({
      zone,
      serial: index.serial(zone),
      secondaries: seen
        .filter((s) => s.zone === zone)
        .map((s) => ({
          secondary: s.secondary,
          kind: s.kind,
          serial: s.serial,
          at: s.at.toISOString(),
          ...(s.form ? { form: s.form } : {}),
        })),
    })),
    ...(source.hub ? { hub: source.hub() } : {}),
  };
}

export async function serverPage(
  source: ServerStatusSource,
  term: string,
  explain?: NameExplanation,
  now = new Date(),
): Promise<string> {
  const index = source.index();
  const readiness = source.readiness();
  const contact = source.secondsSinceContact();
  const summary = html`<span class="${readiness.ready ? 'ok' : 'bad'}">${readiness.ready ? 'ready' : 'not ready'}</span>: \
${readiness.detail} · ${index.entryCount} records at etcd revision ${index.revision}
 · behind etcd by at most ${source.watchLag()} revisions
 · etcd last answered ${Number.isFinite(contact) ? `${Math.round(contact)} s ago` : 'never'}`;
  const found = term ? await searchCopy(index, term) : [];
  const keys = term ? resultsSection(found) : html`<p class="note">Search to list the keys of the copy.</p>\n`;
  return statusPage({
    title: `etcdns server (${index.prefix})`,
    summary,
    query: term,
    searchIn: 'name or address',
    body: html`${explain ? explainSection(explain) : ''}${zonesSection(source, index)}${source.hub ? clustersSection(source.hub()) : ''}${keys}`,
    now,
    json: 'status.json',
  });
}

function zonesSection(source: ServerStatusSource, index: RecordIndex): Html {
  const seen = source.transfers.entries();
  const rows = [...source.zones].sort().map((zone) => {
    const serial = index.serial(zone);
    const mine = seen.filter((s) => s.zone === zone).sort((a, b) => a.secondary.localeCompare(b.secondary));
    const secondaries =
      mine.length === 0
        ? html`<span class="note">none seen</span>`
        : html`<ul>${mine.map(
            (s) => html`<li class="mono"><span class="${s.serial === serial ? 'ok' : 'bad'}">${s.secondary} \
${s.kind === 'notify-acked' ? 'acknowledged NOTIFY of' : 'transferred'} serial ${s.serial}</span>\
${s.form ? ` (${s.form})` : ''} at ${time(s.at)}</li>`,
          )}</ul>`;
    return html`<tr><td class="name">${shownName(zone)}</td><td class="mono">${serial}</td><td>${secondaries}</td></tr>\n`;
  });
  return html`<h2>Zones</h2>
<table><thead><tr><th>Zone</th><th>Serial</th><th>Secondaries</th></tr></thead>
<tbody>
${rows}</tbody></table>
`;
}

/** A hub's member clusters: whether each counts, its lease, the names it was refused (docs/multi-cluster.md). */
function clustersSection(hub: HubSummary): Html {
  const rows = hub.clusters.map((c) => {
    const lease = c.leased
      ? `held for ${c.leaseAgeSeconds} s`
      : c.goneSeconds !== null
        ? `gone ${c.goneSeconds} s ago`
        : 'never seen';
    return html`<tr><td class="name">${c.cluster}</td>\
<td><span class="${c.counts ? 'ok' : 'bad'}">${c.counts ? 'counts' : 'does not count'}</span></td><td>${lease}</td>\
<td${c.refusedNames > 0 ? html` class="bad"` : ''}>${c.refusedNames}</td></tr>\n`;
  });
  const stale =
    hub.staleNames.length === 0
      ? ''
      : html`<p class="bad">Answered stale (no contributing cluster counts): ${hub.staleNames.map(shownName).join(', ')}</p>\n`;
  return html`<h2>Member clusters</h2>
<p class="note">A cluster counts while its lease key is here, and ${hub.graceSeconds} s after it went. Their copy: ${hub.copy}</p>
<table><thead><tr><th>Cluster</th><th>Verdict</th><th>Lease</th><th>Names refused</th></tr></thead>
<tbody>
${rows}</tbody></table>
${stale}${refusedTable(hub)}`;
}

/** Why each member cluster answers one name, or not (/status?name=NAME). */
function explainSection(e: NameExplanation): Html {
  const rows = e.clusters.map((c) => {
    const cells = clusterCells(c);
    return html`<tr><td class="name">${c.cluster}</td><td>${cells.entries}</td>\
<td><span class="${c.counts ? 'ok' : 'bad'}">${cells.standing}</span></td>\
<td><span class="${c.answers ? 'ok' : 'bad'}">${cells.verdict}</span></td><td>${c.why}</td></tr>\n`;
  });
  return html`<h2>Explain ${shownName(e.name)}</h2>
<p class="note">${explanationSummary(e)}</p>
<table><thead><tr><th>Cluster</th><th>Entries</th><th>Lease</th><th>Verdict</th><th>Why</th></tr></thead>
<tbody>
${rows}</tbody></table>
`;
}

/** The names clusters publish outside their claims: never answered nor transferred. */
function refusedTable(hub: HubSummary): Html | string {
  if (hub.refused.length === 0) return '';
  const rows = hub.refused.map(
    (r) =>
      html`<tr><td class="name">${r.cluster}</td><td class="name">${shownName(r.name)}</td><td>${r.reason}</td></tr>\n`,
  );
  return html`<h3>Refused: outside the cluster's claims, never answered</h3>
<table><thead><tr><th>Cluster</th><th>Name</th><th>Why</th></tr></thead>
<tbody>
${rows}</tbody></table>
`;
}

function resultsSection(found: readonly Found[]): Html {
  if (found.length === 0) return html`<h2>Keys</h2>\n<p class="note">No key matches.</p>\n`;
  const rows = found.slice(0, ROW_LIMIT).map(
    (f) => html`<tr><td><span class="name">${shownName(f.name)}</span><br><span class="note mono">${f.key}</span></td>\
<td class="mono">${valueText(f.entry)}</td><td>${f.entry.ttl ?? ''}</td></tr>\n`,
  );
  return html`<h2>Keys: ${found.length > ROW_LIMIT ? `the first ${ROW_LIMIT}` : found.length}</h2>
<table><thead><tr><th>Name (key)</th><th>Value</th><th>TTL</th></tr></thead>
<tbody>
${rows}</tbody></table>
${found.length > ROW_LIMIT ? html`<p class="note">More keys match: search to narrow.</p>\n` : ''}`;
}

function valueText(e: SkyDnsEntry): string {
  const parts = [
    e.host !== undefined ? `host ${e.host}` : '',
    e.port !== undefined ? `port ${e.port}` : '',
    e.priority !== undefined ? `priority ${e.priority}` : '',
    e.text !== undefined ? `text ${JSON.stringify(e.text)}` : '',
    e.mail ? 'mail' : '',
  ];
  return parts.filter(Boolean).join(', ');
}
