// The controller's status page (/status): per view, each name with the records it publishes and
// the object each comes from, how the view treated every record an object asked for there (the
// rule that rewrote it, or why it was refused, dropped or not selected), and every object with a
// problem (skipped, refused, in conflict), with its reason and since when. Searchable by name,
// object or address. Built on object references (kind/namespace/name) only, so every source kind
// appears the same way. Also its summary as JSON (/status.json), which `etcdns status` reads.
import { setImmediate } from 'node:timers/promises';
import type { ControllerStatus } from './controller.ts';
import { resourceId, type DesiredRecord, type ObjectRef } from './desired-record.ts';
import type { Decision } from './views/view-records.ts';
import { html, type Html } from '../status-page/html.ts';
import { ROW_LIMIT, statusPage, time } from '../status-page/status-layout.ts';
import { matches, shownName } from '../status-page/status-search.ts';

/** What /status.json says: enough for a person at a terminal (`etcdns status`). */
export interface ControllerSummary {
  identity: string;
  /** The periodic resync: a leader completes a sync at least this often. */
  resyncSeconds: number;
  leader: boolean;
  ready: boolean;
  readiness: string;
  lastSync?: { at: string; outcome: string };
  lastCompleted?: string;
  views: { name: string; prefix: string; exposure: string; names: number }[];
  problems: {
    since: string;
    reason: string;
    object: Pick<ObjectRef, 'kind' | 'namespace' | 'name'>;
    name?: string;
    message: string;
  }[];
}

export async function controllerSummary(
  status: ControllerStatus,
  identity: string,
  resyncSeconds: number,
): Promise<ControllerSummary> {
  const names = await Promise.all(status.views.map(async (v) => (await takenNames(v)).size));
  return {
    identity,
    resyncSeconds,
    leader: status.leader,
    ready: status.readiness.ready,
    readiness: status.readiness.detail,
    ...(status.lastSync
      ? { lastSync: { at: status.lastSync.at.toISOString(), outcome: status.lastSync.outcome } }
      : {}),
    ...(status.lastCompleted ? { lastCompleted: status.lastCompleted.toISOString() } : {}),
    views: status.views.map((v, i) => ({ name: v.name, prefix: v.prefix, exposure: v.exposure, names: names[i]! })),
    problems: sortedProblems(status).map(({ problem: p, since }) => ({
      since: since.toISOString(),
      reason: p.reason,
      object: { kind: p.object.kind, namespace: p.object.namespace, name: p.object.name },
      ...(p.name ? { name: shownName(p.name) } : {}),
      message: p.message,
    })),
  };
}

export async function controllerPage(
  status: ControllerStatus,
  identity: string,
  term: string,
  now = new Date(),
): Promise<string> {
  const { leader, lastSync, readiness } = status;
  const summary = html`${identity}: <b class="${leader ? 'ok' : 'note'}">${leader ? 'leader' : 'standby'}</b>
 · last sync ${time(lastSync?.at)}${lastSync ? ` (${lastSync.outcome})` : ''} · last completed ${time(status.lastCompleted)}
 · <span class="${readiness.ready ? 'ok' : 'bad'}">${readiness.ready ? 'ready' : 'not ready'}</span>: ${readiness.detail}`;
  return statusPage({
    title: 'etcdns controller',
    summary,
    query: term,
    searchIn: 'name, object (kind/namespace/name) or address',
    body: html`${problemsSection(status, term)}${await Promise.all(status.views.map((v) => viewSection(v, term)))}`,
    now,
    json: 'status.json',
  });
}

function sortedProblems(status: ControllerStatus) {
  return [...status.problems].sort(
    (a, b) =>
      a.since.getTime() - b.since.getTime() || resourceId(a.problem.object).localeCompare(resourceId(b.problem.object)),
  );
}

function problemsSection(status: ControllerStatus, term: string): Html {
  const all = sortedProblems(status);
  const shown = all.filter(({ problem: p }) =>
    matches(term, resourceId(p.object), p.name && shownName(p.name), p.message),
  );
  if (all.length === 0) return html`<h2>Objects with problems</h2>\n<p class="ok">None.</p>\n`;
  const rows = shown.slice(0, ROW_LIMIT).map(
    ({ problem: p, since }) => html`<tr><td class="mono">${time(since)}</td><td class="problem">${p.reason}</td>\
<td class="mono">${resourceId(p.object)}</td><td class="name">${p.name ? shownName(p.name) : ''}</td><td>${p.message}</td></tr>\n`,
  );
  return html`<h2>Objects with problems: ${all.length}${term ? ` (${shown.length} matching)` : ''}</h2>
<table><thead><tr><th>Since</th><th>Reason</th><th>Object</th><th>Name</th><th>What happened</th></tr></thead>
<tbody>
${rows}</tbody></table>
${more(shown.length)}`;
}

type ViewStatus = ControllerStatus['views'][number];

/** Outcomes of records a view does not take at all: their names are not the view's. */
const NOT_TAKEN: ReadonlySet<Decision['outcome']> = new Set(['not-selected', 'outside-zones']);

/** Items looked at before a pass yields to the controller's other work. */
const SLICE = 5000;

/** Runs `each` over `items`, yielding every SLICE items: a view can hold 50,000 names. */
async function inSlices<T>(items: Iterable<T>, each: (item: T) => void): Promise<void> {
  let n = 0;
  for (const item of items) {
    each(item);
    if (++n % SLICE === 0) await setImmediate();
  }
}

/** A view's own names: published, or refused or dropped there (not those only of objects it does not take). */
async function takenNames(view: ViewStatus): Promise<Set<string>> {
  const taken = new Set<string>();
  await inSlices(view.published.keys(), (name) => taken.add(name));
  await inSlices(view.decisions, (d) => {
    if (!NOT_TAKEN.has(d.outcome)) taken.add(d.name);
  });
  return taken;
}

/** The names a search finds: by name, a record's target or object, a decision's target or object. */
async function matchingNames(view: ViewStatus, term: string): Promise<Set<string>> {
  const found = new Set<string>();
  await inSlices(view.published, ([name, records]) => {
    if (matches(term, shownName(name)) || records.some((r) => matches(term, r.target, resourceId(r.object))))
      found.add(name);
  });
  await inSlices(view.decisions, (d) => {
    if (
      !found.has(d.name) &&
      (matches(term, shownName(d.name), d.target, d.resource) || d.published.some((p) => matches(term, p.target)))
    )
      found.add(d.name);
  });
  return found;
}

async function viewSection(view: ViewStatus, term: string): Promise<Html> {
  const taken = await takenNames(view);
  // Without a search a view lists its own names; a search also finds the names it does not take.
  const shown = [...(term ? await matchingNames(view, term) : taken)].sort();
  const heading = html`<h2>View ${view.name} <span class="note">(${view.exposure}, prefix ${view.prefix}): \
${taken.size} names${term ? `; ${shown.length} names match, also of objects the view does not take` : ''}</span></h2>\n`;
  if (shown.length === 0) return html`${heading}<p class="note">No name${term ? ' matches' : ''}.</p>\n`;
  const rowNames = new Set(shown.slice(0, ROW_LIMIT));
  const asked = new Map<string, Decision[]>();
  await inSlices(view.decisions, (d) => {
    if (rowNames.has(d.name)) asked.set(d.name, [...(asked.get(d.name) ?? []), d]);
  });
  const rows = [...rowNames].map((name) => nameRow(name, view.published.get(name) ?? [], asked.get(name) ?? []));
  return html`${heading}<table><thead><tr><th>Name</th><th>Answers (from)</th><th>Asked for by, and what the view did</th></tr></thead>
<tbody>
${rows}</tbody></table>
${more(shown.length)}`;
}

function nameRow(name: string, records: readonly DesiredRecord[], decisions: readonly Decision[]): Html {
  const answers = [...records].sort((a, b) => a.type.localeCompare(b.type) || a.target.localeCompare(b.target));
  const answered =
    answers.length > 0
      ? html`<ul>${answers.map(
          (r) => html`<li class="mono">${r.type} ${shownName(r.target)}${r.ttl !== undefined ? ` (ttl ${r.ttl})` : ''} \
<span class="note">from ${resourceId(r.object)}</span></li>`,
        )}</ul>`
      : decisions.every((d) => NOT_TAKEN.has(d.outcome))
        ? html`<span class="note">not in this view</span>`
        : html`<span class="refused">nothing published</span>`;
  const treated = decisions.map((d) => {
    const left = leftOut(d, answers);
    const outcome = left
      ? html`<span class="refused">left out of the answers (see its problem)</span>`
      : html`<span class="${d.outcome}">${outcomeText(d)}</span>`;
    return html`<li><span class="mono">${d.resource}</span>: ${d.type} ${shownName(d.target)} → ${outcome}\
${d.rule ? html` <span class="note">by ${d.rule}</span>` : ''}</li>`;
  });
  return html`<tr><td class="name">${shownName(name)}</td><td>${answered}</td><td><ul>${treated}</ul></td></tr>\n`;
}

/** The view took the record, but the name's answers do not hold it (a conflict, a name owned by others). */
function leftOut(d: Decision, answers: readonly DesiredRecord[]): boolean {
  return (
    d.outcome === 'published' &&
    !d.published.some((p) =>
      answers.some((r) => r.type === p.type && r.target === p.target && resourceId(r.object) === d.resource),
    )
  );
}

function outcomeText(d: Decision): string {
  if (d.outcome !== 'published') return d.outcome;
  const same = d.published.length === 1 && d.published[0]!.type === d.type && d.published[0]!.target === d.target;
  return same ? 'published' : `published as ${d.published.map((p) => `${p.type} ${shownName(p.target)}`).join(', ')}`;
}

function more(count: number): Html | string {
  return count > ROW_LIMIT ? html`<p class="note">${count - ROW_LIMIT} more: search to narrow.</p>\n` : '';
}
