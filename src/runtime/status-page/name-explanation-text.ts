// A hub's explanation of one name (issue 34) as its /status.json?name= serves it, and the words
// its status page (/status?name=) and `etcdns status --explain` both say it in: one place for
// each, here in the frame both read (`etcdns status` loads none of the server's code). The server
// computes it (dns-server/name-explanation.ts). Pure.
import { shownName } from './status-search.ts';

export interface ClusterExplanation {
  cluster: string;
  /** Its entries at the name, claims aside. */
  entries: number;
  counts: boolean;
  leaseAgeSeconds: number | null;
  goneSeconds: number | null;
  refused: string | null;
  answers: boolean;
  why: string;
}

export interface NameExplanation {
  name: string;
  zone: string;
  policy: string;
  /** The client's site cluster (prefer), when a client address was given and a site holds it. */
  site: string | null;
  /** No contributing cluster counts: those with entries answer anyway (serve-stale). */
  stale: boolean;
  /** The clusters whose entries answer, in answer order (weighted: one of them per answer). */
  answering: string[];
  clusters: ClusterExplanation[];
}

/** A cluster's lease as the hub sees it: held since it first saw it, gone since, or never seen. */
export function leaseText(lease: {
  leaseAgeSeconds: number | null | undefined;
  goneSeconds: number | null | undefined;
}): string {
  if (lease.leaseAgeSeconds != null) return `lease held for ${Math.round(lease.leaseAgeSeconds)} s`;
  if (lease.goneSeconds != null) return `lease gone ${Math.round(lease.goneSeconds)} s ago`;
  return 'lease never seen';
}

/** The name's zone, policy and client's site, and which clusters answer it. */
export function explanationSummary(e: NameExplanation): string {
  return `Zone ${shownName(e.zone)}, policy ${e.policy}${e.site ? `, client's site ${e.site}` : ''}. \
Answering: ${e.answering.join(', ') || 'no member cluster'}${e.stale ? ' (stale: no contributing cluster counts)' : ''}.`;
}

/** One member cluster at the name, cell by cell: its entries, its standing, its verdict and why. */
export function clusterCells(c: ClusterExplanation): { entries: string; standing: string; verdict: string } {
  return {
    entries: `${c.entries} ${c.entries === 1 ? 'entry' : 'entries'}`,
    standing: `${c.counts ? 'counts' : 'does not count'}, ${leaseText(c)}`,
    verdict: c.answers ? 'answers' : 'does not answer',
  };
}
