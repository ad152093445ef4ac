// The resolver's output: a response as plain data (names canonical, lower-case). The wire layer
// turns it into bytes; tests compare it directly.
import type { TYPE } from './dns-constants.ts';

interface Owner {
  name: string;
  ttl: number;
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
}
