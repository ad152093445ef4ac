// RFC 2136's processing of one UPDATE against the entries of the names it touches, pure: the
// prerequisites (3.2), the key's permission (3.3, the key's scope), the prescan (3.4.1), then the
// updates in order (3.4.2) on a working copy of the key's own entries, giving the keys to write and
// to delete, or the rcode that stops it. A name holding any entry the key does not own (the
// controller's, another key's, a hand-written one) is REFUSED: an update never touches them.
import { isInZone } from '../../../dns/dns-name.ts';
import { childLabelOf } from '../../../skydns/child-label.ts';
import type { SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { nameToKey } from '../../../skydns/skydns-key.ts';
import { CLASS, RCODE, TYPE } from '../wire/dns-constants.ts';
import { entryRecords, rdataValue, textOf, txtStrings } from './record-values.ts';
import type { UpdateMessage, UpdateRecord } from './update-message.ts';
import type { UpdateScope } from './update-scope.ts';

/** One stored entry of a name; `entry` undefined: a value that does not decode (nobody's to touch). */
export interface NameEntry {
  key: string;
  entry: SkyDnsEntry | undefined;
  /** It sits under the name's dns/ns/ (an NS record of the name). */
  nameServer: boolean;
}

export interface UpdateChanges {
  put: { key: string; entry: SkyDnsEntry }[];
  delete: string[];
}

export type UpdateOutcome = { rcode: typeof RCODE.NOERROR; changes: UpdateChanges } | { rcode: number; reason: string };

export interface UpdateInput {
  message: UpdateMessage;
  /** The message's bytes: names in rdata may point into it. */
  msg: Buffer;
  scope: UpdateScope;
  /** The entries of every name the message names (absent or empty: none). */
  entries: ReadonlyMap<string, readonly NameEntry[]>;
  prefix: string;
  /** Every served zone (canonical): a name in a zone below the message's is not of its zone. */
  zones: readonly string[];
}

/** Types no update may add (RFC 2136 3.4.1.3), nor delete by value. */
const META = new Set<number>([TYPE.ANY, TYPE.AXFR, TYPE.IXFR, 253, 254, TYPE.TSIG, TYPE.OPT]);

const stop = (rcode: number, reason: string): UpdateOutcome => ({ rcode, reason });

/** The names a message's prerequisites and updates name (all the evaluation reads). */
export function namesOf(message: UpdateMessage): string[] {
  return [...new Set([...message.prerequisites, ...message.updates].map((r) => r.name))];
}

function recordsAt(input: UpdateInput, name: string) {
  const zone = input.message.zone.name;
  return (input.entries.get(name) ?? []).flatMap((e) =>
    e.entry ? entryRecords(name, e.entry, zone, e.nameServer) : [],
  );
}

/** Whether `name`'s zone (the longest served one holding it) is `zone` (RFC 2136 3.2.5, 3.4.1.3). */
function ofZone(name: string, zone: string, zones: readonly string[]): boolean {
  return isInZone(name, zone) && !zones.some((z) => z !== zone && isInZone(z, zone) && isInZone(name, z));
}

/** RFC 2136 3.2.5. */
function prerequisites(input: UpdateInput): UpdateOutcome | undefined {
  const { message, msg } = input;
  const wanted = new Map<string, { name: string; type: number; values: (string | undefined)[] }>();
  for (const rr of message.prerequisites) {
    if (rr.ttl !== 0) return stop(RCODE.FORMERR, `prerequisite ${rr.name} has a TTL`);
    if (!ofZone(rr.name, message.zone.name, input.zones))
      return stop(RCODE.NOTZONE, `prerequisite ${rr.name} is outside the zone`);
    const records = recordsAt(input, rr.name);
    if (rr.class === CLASS.ANY || rr.class === CLASS.NONE) {
      if (rr.rdata.length !== 0) return stop(RCODE.FORMERR, `prerequisite ${rr.name} has rdata`);
      const present = rr.type === TYPE.ANY ? records.length > 0 : records.some((r) => r.type === rr.type);
      if (rr.class === CLASS.ANY && !present)
        return rr.type === TYPE.ANY
          ? stop(RCODE.NXDOMAIN, `${rr.name} is not in use`)
          : stop(RCODE.NXRRSET, `${rr.name} has no records of type ${rr.type}`);
      if (rr.class === CLASS.NONE && present)
        return rr.type === TYPE.ANY
          ? stop(RCODE.YXDOMAIN, `${rr.name} is in use`)
          : stop(RCODE.YXRRSET, `${rr.name} has records of type ${rr.type}`);
    } else if (rr.class === message.zone.class) {
      const slot = `${rr.name} ${rr.type}`;
      const set = wanted.get(slot) ?? { name: rr.name, type: rr.type, values: [] };
      set.values.push(rdataValue(rr.type, msg, rr.rdata, rr.rdataStart));
      wanted.set(slot, set);
    } else return stop(RCODE.FORMERR, `prerequisite ${rr.name} has class ${rr.class}`);
  }
  for (const { name, type, values } of wanted.values()) {
    const have = new Set(recordsAt(input, name).flatMap((r) => (r.type === type ? [r.value] : [])));
    const want = new Set(values);
    const equal = have.size === want.size && [...want].every((v) => v !== undefined && have.has(v));
    if (!equal) return stop(RCODE.NXRRSET, `the ${type} records of ${name} differ from the prerequisite`);
  }
  return undefined;
}

/** RFC 2136 3.4.1.3. */
function prescan(
  rr: UpdateRecord,
  zone: string,
  zoneClass: number,
  zones: readonly string[],
): UpdateOutcome | undefined {
  if (!ofZone(rr.name, zone, zones)) return stop(RCODE.NOTZONE, `${rr.name} is outside the zone`);
  if (rr.class === zoneClass) return META.has(rr.type) ? stop(RCODE.FORMERR, `cannot add type ${rr.type}`) : undefined;
  if (rr.class === CLASS.ANY)
    return rr.ttl !== 0 || rr.rdata.length !== 0 || [TYPE.AXFR, 253, 254].includes(rr.type)
      ? stop(RCODE.FORMERR, `malformed deletion at ${rr.name}`)
      : undefined;
  if (rr.class === CLASS.NONE)
    return rr.ttl !== 0 || META.has(rr.type) ? stop(RCODE.FORMERR, `malformed deletion at ${rr.name}`) : undefined;
  return stop(RCODE.FORMERR, `update ${rr.name} has class ${rr.class}`);
}

export function evaluateUpdate(input: UpdateInput): UpdateOutcome {
  const { message, msg, scope, prefix } = input;
  const zone = message.zone.name;
  const failed = prerequisites(input);
  if (failed) return failed;
  // 3.3: the key's scope decides, before anything is looked at further.
  for (const rr of message.updates)
    if (!scope.allows(rr.name, rr.type) || rr.name === zone)
      return stop(RCODE.REFUSED, `${rr.name} type ${rr.type} is outside the scope of key ${scope.key}`);
  for (const rr of message.updates) {
    const bad = prescan(rr, zone, message.zone.class, input.zones);
    if (bad) return bad;
  }
  // Our own entries of each name, to work on; a name with anyone else's is not ours to change.
  const working = new Map<string, Map<string, SkyDnsEntry>>();
  for (const rr of message.updates) {
    if (working.has(rr.name)) continue;
    const own = new Map<string, SkyDnsEntry>();
    for (const e of input.entries.get(rr.name) ?? []) {
      if (!e.entry || e.entry.owner !== scope.owner)
        return stop(RCODE.REFUSED, `${rr.name} holds records key ${scope.key} does not own (${e.key})`);
      own.set(e.key, e.entry);
    }
    working.set(rr.name, own);
  }
  const before = new Map([...working.values()].flatMap((m) => [...m]));
  const written = new Set<string>();
  for (const rr of message.updates) {
    const own = working.get(rr.name)!;
    const give = (entry: SkyDnsEntry) => entryRecords(rr.name, entry, zone, false);
    if (rr.class === message.zone.class) {
      const strings = txtStrings(rr.rdata);
      const text = strings && textOf(strings);
      if (text === undefined)
        return stop(RCODE.REFUSED, `TXT at ${rr.name}: only UTF-8 strings cut at 255 bytes can be stored`);
      const key = `${nameToKey(rr.name, prefix)}/${childLabelOf(`TXT ${text}`)}`;
      own.set(key, { text, ...(rr.ttl > 0 ? { ttl: rr.ttl } : {}), owner: scope.owner });
      written.add(key);
      continue;
    }
    const value = rr.class === CLASS.NONE ? rdataValue(rr.type, msg, rr.rdata, rr.rdataStart) : undefined;
    for (const [key, entry] of own) {
      const matches = give(entry).some(
        (r) =>
          rr.type === TYPE.ANY ||
          (r.type === rr.type && (rr.class === CLASS.ANY || (value !== undefined && r.value === value))),
      );
      if (matches) own.delete(key);
    }
  }
  const after = new Map([...working.values()].flatMap((m) => [...m]));
  return {
    rcode: RCODE.NOERROR,
    changes: {
      put: [...after].filter(([key]) => written.has(key)).map(([key, entry]) => ({ key, entry })),
      delete: [...before.keys()].filter((key) => !after.has(key)),
    },
  };
}
