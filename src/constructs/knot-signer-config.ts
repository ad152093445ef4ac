// The configuration of Knot DNS as a bump-in-the-wire DNSSEC signer in front of etcdns: a
// secondary of etcdns's zones (IXFR, NOTIFY, TSIG) that signs what it receives with its own keys
// (a KASP policy: it makes, rolls and retires the ZSKs itself, publishes CDS/CDNSKEY for the KSK)
// and serves and transfers the signed zones. etcdns stays unsigned: signing, key storage and
// rollovers are Knot's, a signer DNS engineers already run. Pure: text in, text out.
import { ConfigError } from '../config/config-error.ts';
import { dnsNameProblem } from '../dns/dns-name.ts';

/** How the zones are signed (Knot's `policy` section). */
export interface SignerPolicy {
  /**
   * The signing algorithm (RFC 8624: ECDSA P-256 is the one to use, Ed25519 the next).
   * @default "ecdsap256sha256"
   */
  readonly algorithm?: 'ecdsap256sha256' | 'ecdsap384sha384' | 'ed25519' | 'rsasha256';
  /**
   * How long a ZSK signs before Knot rolls it (pre-publish), a Knot time ("30d", "12h", "20s").
   * @default "30d"
   */
  readonly zskLifetime?: string;
  /**
   * How long a KSK serves before Knot starts a rollover; "0": never by itself (its DS at the
   * parent is a human step there). Knot publishes CDS/CDNSKEY for the parent either way.
   * @default "0"
   */
  readonly kskLifetime?: string;
  /**
   * Denial of existence by NSEC3 (no zone walking by NSEC chains), with 0 extra iterations and
   * no salt (RFC 9276); false: NSEC.
   * @default true
   */
  readonly nsec3?: boolean;
  /**
   * The DNSKEY TTL, the largest TTL in the zone and the time a change takes to reach every
   * secondary: Knot waits for them between the steps of a rollover.
   * @default - Knot's: the SOA minimum, the zone's largest TTL, 1h
   */
  readonly dnskeyTtl?: string;
  readonly zoneMaxTtl?: string;
  readonly propagationDelay?: string;
  /**
   * How long a signature is valid, and how long before it ends Knot signs again.
   * @default - Knot's: 14d and 7d
   */
  readonly rrsigLifetime?: string;
  readonly rrsigRefresh?: string;
}

export interface KnotSignerConfigInput {
  /** The zones to sign, each an etcdns zone. */
  zones: readonly string[];
  /** Where it answers, "address@port". */
  listen: string;
  /** Its data (the signed zones' journal and the keys, KASP database): a persistent volume. */
  storage: string;
  rundir: string;
  /** The etcdns server it transfers from (an address, not a name: Knot takes none). */
  primary: { address: string; port: number };
  /** The TSIG key of the transfers from etcdns: a Knot key file (`key:` section) and its id. */
  tsig?: { id: string; file: string };
  /** The policy of every zone. */
  policy?: SignerPolicy;
  /** Who may transfer the signed zones (the outside's secondaries), as addresses or CIDRs. */
  transferAllow?: readonly string[];
  /** Secondaries NOTIFYed when a signed zone changes, "address@port". */
  notify?: readonly string[];
}

const TIME = /^\d+[smhdw]?$/;

type OptionalTimes = 'dnskeyTtl' | 'zoneMaxTtl' | 'propagationDelay' | 'rrsigLifetime' | 'rrsigRefresh';
type Policy = Required<Omit<SignerPolicy, OptionalTimes>> & Pick<SignerPolicy, OptionalTimes>;

/** The policy with its defaults; a ConfigError naming the field for a time Knot would refuse. */
export function signerPolicy(policy: SignerPolicy = {}, field = 'policy'): Policy {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(policy))
    if (typeof value === 'string' && key !== 'algorithm' && !TIME.test(value))
      problems.push(`${field}.${key}: must be a time such as "30d", "12h" or "20s" (got ${JSON.stringify(value)})`);
  if (problems.length > 0) throw new ConfigError(problems);
  return { algorithm: 'ecdsap256sha256', zskLifetime: '30d', kskLifetime: '0', nsec3: true, ...policy };
}

/** Knot's name for each optional time of the policy. */
const POLICY_TIMES: Record<OptionalTimes, string> = {
  dnskeyTtl: 'dnskey-ttl',
  zoneMaxTtl: 'zone-max-ttl',
  propagationDelay: 'propagation-delay',
  rrsigLifetime: 'rrsig-lifetime',
  rrsigRefresh: 'rrsig-refresh',
};

export function knotSignerConfig(input: KnotSignerConfigInput): string {
  const bad = input.zones.flatMap((z, i) => {
    const problem = dnsNameProblem(z);
    return problem ? [`zones[${i}]: ${problem}`] : [];
  });
  if (input.zones.length === 0) bad.push('zones: must list at least one zone to sign');
  if (bad.length > 0) throw new ConfigError(bad);
  const policy = signerPolicy(input.policy);
  const { address, port } = input.primary;
  const key = input.tsig ? `    key: ${input.tsig.id}\n` : '';
  const lines = [
    'server:',
    `    rundir: ${input.rundir}`,
    `    listen: ${input.listen}`,
    'database:',
    `    storage: ${input.storage}`,
    'log:',
    '  - target: stderr',
    '    any: info',
    ...(input.tsig ? [`include: ${input.tsig.file}`] : []),
    'remote:',
    '  - id: etcdns',
    `    address: ${address}@${port}`,
    key.trimEnd(),
    ...(input.notify ?? []).flatMap((n, i) => [`  - id: secondary-${i}`, `    address: ${n}`]),
    'acl:',
    '  - id: notify-from-etcdns',
    `    address: ${address}`,
    key.trimEnd(),
    '    action: notify',
    ...(input.transferAllow?.length
      ? ['  - id: transfer-out', `    address: [${input.transferAllow.join(', ')}]`, '    action: transfer']
      : []),
    'policy:',
    '  - id: etcdns',
    `    algorithm: ${policy.algorithm}`,
    `    zsk-lifetime: ${policy.zskLifetime}`,
    `    ksk-lifetime: ${policy.kskLifetime}`,
    // Published always, so the parent (or the person giving it the DS) can read it at any time.
    '    cds-cdnskey-publish: always',
    ...(policy.nsec3 ? ['    nsec3: on', '    nsec3-iterations: 0', '    nsec3-salt-length: 0'] : []),
    ...(Object.keys(POLICY_TIMES) as OptionalTimes[]).flatMap((k) =>
      policy[k] !== undefined ? [`    ${POLICY_TIMES[k]}: ${policy[k]}`] : [],
    ),
    'zone:',
    ...input.zones.flatMap((zone) => [
      `  - domain: ${zone}`,
      '    master: etcdns',
      `    acl: [notify-from-etcdns${input.transferAllow?.length ? ', transfer-out' : ''}]`,
      ...(input.notify?.length ? [`    notify: [${input.notify.map((_, i) => `secondary-${i}`).join(', ')}]`] : []),
      '    dnssec-signing: on',
      '    dnssec-policy: etcdns',
      // The signed zone lives in the journal (kept across restarts with the keys); no zone file.
      '    zonefile-load: none',
      '    zonefile-sync: -1',
      '    journal-content: all',
    ]),
  ];
  return `${lines.filter((l) => l !== '').join('\n')}\n`;
}
