// Compares two DNS answers as a client sees them (via dig): rcode, the AA flag and the record
// sets of the answer, authority and additional sections, in any order. The SOA serial is left
// out: servers may number versions differently (etcdns: from etcd revisions; CoreDNS: the clock).
import type { DigRecord, DigResult } from './dig-output.ts';

export interface ComparableAnswer {
  status: string;
  aa: boolean;
  answer: string[];
  authority: string[];
  additional: string[];
}

const SECTIONS = ['answer', 'authority', 'additional'] as const;

/** "name ttl class type data", sorted; owner names keep their letter case (it is part of the answer). */
function records(rs: readonly DigRecord[]): string[] {
  return rs
    .map((r) => {
      const data = r.type === 'SOA' ? r.data.replace(/^(\S+ \S+) \d+ /, '$1 <serial> ') : r.data;
      return `${r.name} ${r.ttl} ${r.class} ${r.type} ${data}`;
    })
    .sort();
}

export function comparable(r: DigResult): ComparableAnswer {
  return {
    status: r.status,
    aa: r.flags.includes('aa'),
    answer: records(r.answer),
    authority: records(r.authority),
    additional: records(r.additional),
  };
}

/** Human-readable differences between two answers; empty when they are the same. */
export function answerDifferences(
  ours: ComparableAnswer,
  theirs: ComparableAnswer,
  labels: [string, string] = ['ours', 'theirs'],
): string[] {
  const out: string[] = [];
  if (ours.status !== theirs.status) out.push(`rcode: ${labels[0]} ${ours.status}, ${labels[1]} ${theirs.status}`);
  if (ours.aa !== theirs.aa) out.push(`AA: ${labels[0]} ${ours.aa}, ${labels[1]} ${theirs.aa}`);
  for (const s of SECTIONS) {
    const onlyOurs = ours[s].filter((r) => !theirs[s].includes(r));
    const onlyTheirs = theirs[s].filter((r) => !ours[s].includes(r));
    for (const r of onlyOurs) out.push(`${s}: only ${labels[0]}: ${r}`);
    for (const r of onlyTheirs) out.push(`${s}: only ${labels[1]}: ${r}`);
    if (onlyOurs.length === 0 && onlyTheirs.length === 0 && ours[s].length !== theirs[s].length) {
      out.push(`${s}: ${labels[0]} has ${ours[s].length} records, ${labels[1]} ${theirs[s].length} (duplicates)`);
    }
  }
  return out;
}
