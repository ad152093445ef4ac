// The resolver's output: a response as plain data (names canonical, lower-case). The wire layer
// turns it into bytes; tests compare it directly.
import type { TYPE } from './dns-constants.ts';

interface Owner {
  name: string;
  ttl: number;
  /** Absent: IN; CH for the server's own CHAOS answers. */
  class?: number;
}

export type ResourceRecord =
  | (Owner & { type: typeof TYPE.A; address: string })
  | (Owner & { type: typeof TYPE.AAAA; address: string })
  | (Owner & { type: typeof TYPE.CNAME; target: string })
  | (Owner & { type: typeof TYPE.PTR; target: string })
  | (Owner & { type: typeof TYPE.NS; target: string })
  | (Owner & { type: typeof TYPE.TXT; text: Buffer[] })
  | (Owner & { type: typeof TYPE.HINFO; cpu: string; os: string })
  | (Owner & { type: typeof TYPE.MX; preference: number; exchange: string })
  | (Owner & { type: typeof TYPE.SRV; priority: number; weight: number; port: number; target: string })
  | (Owner & {
      type: typeof TYPE.SOA;
      mname: string;
      rname: string;
      serial: number;
      refresh: number;
      retry: number;
      expire: number;
      minimum: number;
    });

/** A record as a comparable string: equal records, equal keys. */
export function recordKey(r: ResourceRecord): string {
  return JSON.stringify(r);
}

/**
 * What zone transfer gets for an IXFR: the names changed since the secondary's serial, their
 * records then and now (and the zone's size, to tell when the whole zone is smaller); or why the
 * whole zone is to go instead.
 */
export type ZoneChanges =
  | {
      kind: 'changes';
      serial: number;
      before: ResourceRecord[];
      after: ResourceRecord[];
      zoneSize: number;
      /**
       * The serial names a version of this process only (a hub's, answer/zone-versions.ts): the
       * changes hold for a secondary this process last transferred that serial to, not for one
       * that got it from another replica, whose zone at that serial may differ.
       */
      ownVersion?: true;
    }
  | { kind: 'whole'; why: string };

export interface Question {
  /** Canonical (lower-case, trailing dot). The wire layer keeps the client's spelling. */
  name: string;
  type: number;
  class: number;
}

export interface Answer {
  rcode: number;
  /** AA: set for answers from our zones, clear for referrals and refusals. */
  authoritative: boolean;
  answer: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
  /** The name is in none of our zones: forwarding may apply (for permitted clients only). */
  outOfZone?: boolean;
  /** A delegation: the glue in additional is required, it must not be dropped to fit. */
  referral?: boolean;
  /** The apex of the zone of ours the question fell in, if any: whose SOA serial a negative answer carries. */
  zone?: string;
  /**
   * What the resolver found: the answer is made of the entries at and below the question name
   * alone (answer/answer-scope.ts), so only a change on that name's key path can change it.
   */
  ownName?: boolean;
  /** Made for this query alone (a hub's weighted zone): never cached. */
  perQuery?: boolean;
}
