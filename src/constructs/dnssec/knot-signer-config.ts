// The configuration of Knot DNS as a bump-in-the-wire DNSSEC signer in front of etcdns: a
// secondary of etcdns's zones (IXFR, NOTIFY, TSIG) that signs what it receives with its own keys
// (a KASP policy: it makes, rolls and retires the ZSKs itself, publishes CDS/CDNSKEY for the KSK)
// and serves and transfers the signed zones. etcdns stays unsigned: signing, key storage and
// rollovers are Knot's, a signer DNS engineers already run. Pure: text in, text out.
import { ConfigError } from '../../config/config-error.ts';
import { dnsNameProblem } from '../../dns/dns-name.ts';

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
   * The DNSKEY records' TTL. This, `zoneMaxTtl` and `propagationDelay` are what Knot waits out
   * between the steps of a rollover.
   * @default - Knot's: the zone's SOA TTL
   */
  readonly dnskeyTtl?: string;
  /**
   * The largest TTL in the zone, which Knot waits out between the steps of a rollover.
   * @default - Knot's: computed from the zone
   */
  readonly zoneMaxTtl?: string;
  /**
   * The time a change takes to reach every secondary of the signed zone.
   * @default - Knot's: 1h
   */
  readonly propagationDelay?: string;
  /**
   * How long a signature is valid.
   * @default - Knot's: 14d
   */
  readonly rrsigLifetime?: string;
  /**
   * How long before a signature ends Knot signs again.
   * @default - Knot's: 7d
   */
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
  /**
   * The etcdns server it transfers from: an address (Knot takes no names), NOTIFYs from it
   * accepted; or a file defining the remote "etcdns" (with the TSIG key), written before Knot
   * starts (DnssecSigner's init container resolves the server's Service name into it).
   */
  primary: { address: string; port: number } | { file: string };
  /** The TSIG key of the transfers from etcdns: a Knot key file (`key:` section) and its id. */
  tsig?: { id: string; file: string };
  /** The policy of every zone. */
  policy?: SignerPolicy;
  /** Who may transfer the signed zones (the outside's secondaries), as addresses or CIDRs. */
  transferAllow?: readonly string[];
  /** Secondaries NOTIFYed when a signed zone changes, "address@port". */
  notify?: readonly string[];
  /**
   * How often at most Knot asks etcdns for the zone's SOA (`refresh-max-interval`; Knot's floor is
   * 2 s): what brings a change without a NOTIFY.
   * @default - the SOA's refresh
   */
  refreshInterval?: string;
}

const ALGORITHMS: readonly string[] = ['ecdsap256sha256', 'ecdsap384sha384', 'ed25519', 'rsasha256'];
const TIME = /^\d+[smhdw]?$/;

type OptionalTimes = 'dnskeyTtl' | 'zoneMaxTtl' | 'propagationDelay' | 'rrsigLifetime' | 'rrsigRefresh';
type Policy = Required<Omit<SignerPolicy, OptionalTimes>> & Pick<SignerPolicy, OptionalTimes>;

/** Each time of the policy Knot would refuse, naming its field. */
export function signerPolicyProblems(policy: SignerPolicy = {}, field = 'policy'): string[] {
  const problems: string[] = [];
  if (policy.algorithm !== undefined && !ALGORITHMS.includes(policy.algorithm))
    problems.push(
      `${field}.algorithm: must be one of ${ALGORITHMS.map((a) => JSON.stringify(a)).join(', ')} (got ${JSON.stringify(policy.algorithm)})`,
    );
  for (const [key, value] of Object.entries(policy))
    if (typeof value === 'string' && key !== 'algorithm' && !TIME.test(value))
      problems.push(`${field}.${key}: must be a time such as "30d", "12h" or "20s" (got ${JSON.stringify(value)})`);
  return problems;
}

/** The policy with its defaults; a ConfigError naming the field for a time Knot would refuse. */
export function signerPolicy(policy: SignerPolicy = {}, field = 'policy'): Policy {
  const problems = signerPolicyProblems(policy, field);
  if (problems.length > 0) throw new ConfigError(problems);
  return { algorithm: 'ecdsap256sha256', zskLifetime: '30d', kskLifetime: '0', nsec3: true, ...policy };
}

/** A refresh interval Knot takes: a time of 2 s or more. */
export function refreshIntervalProblems(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  const seconds = typeof value === 'string' && TIME.test(value) ? knotSeconds(value) : undefined;
  return seconds !== undefined && seconds >= 2
    ? []
    : [`${field}: must be a time of 2 s or more such as "5s" or "1m" (got ${JSON.stringify(value)})`];
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
/** A Knot time in seconds (no unit: seconds). */
const knotSeconds = (time: string) => parseInt(time, 10) * (UNIT_SECONDS[time.slice(-1)] ?? 1);

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
  bad.push(...refreshIntervalProblems(input.refreshInterval, 'refreshInterval'));
  if (bad.length > 0) throw new ConfigError(bad);
  const policy = signerPolicy(input.policy);
  const key = input.tsig ? `    key: ${input.tsig.id}\n` : '';
  // NOTIFYs are accepted from a primary known by its address only.
  const notifyFrom = 'address' in input.primary ? input.primary.address : undefined;
  const zoneAcls = [
    ...(notifyFrom ? ['notify-from-etcdns'] : []),
    ...(input.transferAllow?.length ? ['transfer-out'] : []),
  ];
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
    ...('file' in input.primary
      ? [`include: ${input.primary.file}`]
      : ['remote:', '  - id: etcdns', `    address: ${input.primary.address}@${input.primary.port}`, key.trimEnd()]),
    ...(input.notify?.length
      ? ['remote:', ...input.notify.flatMap((n, i) => [`  - id: secondary-${i}`, `    address: ${n}`])]
      : []),
    ...(zoneAcls.length > 0 ? ['acl:'] : []),
    ...(notifyFrom
      ? ['  - id: notify-from-etcdns', `    address: ${notifyFrom}`, key.trimEnd(), '    action: notify']
      : []),
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
      ...(zoneAcls.length > 0 ? [`    acl: [${zoneAcls.join(', ')}]`] : []),
      ...(input.refreshInterval ? [`    refresh-max-interval: ${input.refreshInterval}`] : []),
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
