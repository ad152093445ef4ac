// A name's own merge policy at a hub (issue 34), beside its zone's (hub.zones): set on the object
// in a spoke, by annotations (any source) or labels (a DNSEndpoint, whose annotations external-dns
// never reads), carried in each entry the spoke writes for the object, and read by the hub's
// merge; and whether a Service's names follow its ready endpoints (hubready, written by the
// service source). Values fit in a label (63 characters, no commas): a failover order's cluster
// names are separated by dots (commas are accepted in an annotation too). Pure; both sides
// import it.
import type { SkyDnsEntry } from './skydns-entry.ts';
import { CLUSTER_NAME } from './cluster-prefix.ts';

export const NAME_POLICY_KEYS = {
  /** all, failover, prefer, prefer-alone or weighted. */
  policy: 'etcdns.io/hub-policy',
  /** failover: cluster names in order of preference, e.g. "dc2.dc1". */
  order: 'etcdns.io/hub-order',
  /** This cluster's weight for the name (0-1000), when it merges by weighted. */
  weight: 'etcdns.io/hub-weight',
  /** A Service's: "endpoints": with no ready endpoint, its names fail over to the other clusters. */
  health: 'etcdns.io/hub-health',
} as const;

export const NAME_POLICIES = ['all', 'failover', 'prefer', 'prefer-alone', 'weighted'] as const;
export type NamePolicyKind = (typeof NAME_POLICIES)[number];

/** What one cluster says of a name; each field as its entries carry it (hubpolicy, huborder, hubweight). */
export interface NamePolicy {
  policy?: NamePolicyKind;
  /** failover only, never empty. */
  order?: string[];
  weight?: number;
  /** The object's: its entries say whether its Service has a ready endpoint (hubready). */
  health?: 'endpoints';
}

const MAX_WEIGHT = 1000;

export type NamePolicyRead = { ok: true; policy: NamePolicy | undefined } | { ok: false; error: string };

/** The object's keys (annotations, or a DNSEndpoint's labels and annotations), checked. */
export function readNamePolicy(keys: Readonly<Record<string, string>> | undefined): NamePolicyRead {
  const raw = {
    policy: keys?.[NAME_POLICY_KEYS.policy]?.trim(),
    order: keys?.[NAME_POLICY_KEYS.order]?.trim(),
    weight: keys?.[NAME_POLICY_KEYS.weight]?.trim(),
    health: keys?.[NAME_POLICY_KEYS.health]?.trim(),
  };
  if (Object.values(raw).every((v) => v === undefined)) return { ok: true, policy: undefined };
  const fail = (key: keyof typeof NAME_POLICY_KEYS, error: string): NamePolicyRead => ({
    ok: false,
    error: `${NAME_POLICY_KEYS[key]}: ${error}`,
  });
  const policy = raw.policy as NamePolicyKind | undefined;
  if (policy !== undefined && !NAME_POLICIES.includes(policy))
    return fail('policy', `${JSON.stringify(raw.policy)} is not one of ${NAME_POLICIES.join(', ')}`);
  const out: NamePolicy = policy ? { policy } : {};
  if (raw.order !== undefined) {
    if (policy !== 'failover') return fail('order', `is only for ${NAME_POLICY_KEYS.policy}: failover`);
    const order = raw.order.split(/[.,]/).map((s) => s.trim());
    const bad = order.find((c) => !CLUSTER_NAME.test(c));
    if (bad !== undefined)
      return fail('order', `${JSON.stringify(bad)} is not a cluster name (cluster names separated by dots)`);
    if (new Set(order).size !== order.length) return fail('order', 'names a cluster twice');
    out.order = order;
  } else if (policy === 'failover') return fail('order', 'is required by failover (cluster names separated by dots)');
  if (raw.weight !== undefined) {
    if (policy !== undefined && policy !== 'weighted')
      return fail(
        'weight',
        `is only for ${NAME_POLICY_KEYS.policy}: weighted (or with no policy, for a weighted zone)`,
      );
    if (!/^\d+$/.test(raw.weight) || Number(raw.weight) > MAX_WEIGHT)
      return fail('weight', `${JSON.stringify(raw.weight)} is not a whole number from 0 to ${MAX_WEIGHT}`);
    out.weight = Number(raw.weight);
  }
  if (raw.health !== undefined) {
    if (raw.health !== 'endpoints') return fail('health', `${JSON.stringify(raw.health)} is not "endpoints"`);
    out.health = 'endpoints';
  }
  return { ok: true, policy: out };
}

/** The entry fields that carry a cluster's policy for a name. */
export function namePolicyFields(p: NamePolicy): Pick<SkyDnsEntry, 'hubpolicy' | 'huborder' | 'hubweight'> {
  return {
    ...(p.policy !== undefined ? { hubpolicy: p.policy } : {}),
    ...(p.order !== undefined ? { huborder: p.order.join(',') } : {}),
    ...(p.weight !== undefined ? { hubweight: p.weight } : {}),
  };
}

/**
 * What an entry says of its name's policy, or undefined when nothing (or nothing usable: a value
 * written by hand that a spoke would have refused is ignored, as an unknown field is).
 */
export function entryNamePolicy(entry: SkyDnsEntry): NamePolicy | undefined {
  const policy = NAME_POLICIES.find((p) => p === entry.hubpolicy);
  const order = entry.huborder?.split(',').filter((c) => CLUSTER_NAME.test(c));
  const weight =
    entry.hubweight !== undefined && entry.hubweight >= 0 && entry.hubweight <= MAX_WEIGHT
      ? entry.hubweight
      : undefined;
  if (policy === undefined && weight === undefined) return undefined;
  return {
    ...(policy !== undefined ? { policy } : {}),
    ...(policy === 'failover' && order && order.length > 0 ? { order } : {}),
    ...(weight !== undefined ? { weight } : {}),
  };
}
