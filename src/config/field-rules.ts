// The rule of every single setting, in one place: each schema's message says what is allowed and
// what was given. The shapes (etcd-connection.ts, zone-config.ts, ...) are built from these, and the
// constructs check their props with the same ones, so a value is judged alike wherever it is given.
import { isIP } from 'node:net';
import * as v from 'valibot';
import { parseCidr } from '../dns/cidr.ts';
import { canonicalName, dnsNameProblem } from '../dns/dns-name.ts';
import { CLUSTER_NAME } from '../skydns/cluster-prefix.ts';

const got = (issue: { input: unknown }) => `(got ${JSON.stringify(issue.input)})`;

/** A string that passes `test`; `allowed` says what would. */
export function text(allowed: string, test: (s: string) => boolean = () => true) {
  return v.pipe(
    v.string((i) => `must be ${allowed} ${got(i)}`),
    v.check(test, (i) => `must be ${allowed} ${got(i)}`),
  );
}

/** A whole number from min to max. */
export function integer(min: number, max: number, what = 'an integer') {
  const message = (i: { input: unknown }) => `must be ${what} from ${min} to ${max} ${got(i)}`;
  return v.pipe(
    v.number(message),
    v.check((n) => Number.isInteger(n) && n >= min && n <= max, message),
  );
}

export function oneOf<const T extends readonly string[]>(allowed: T) {
  return v.picklist(allowed, (i) => `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')} ${got(i)}`);
}

/** A list of at least `min` items. */
export function list<S extends v.GenericSchema>(item: S, what: string, min = 1) {
  return v.pipe(
    v.array(item, (i) => `must be a list of ${what} ${got(i)}`),
    v.check((a) => a.length >= min, `must list at least ${min === 1 ? 'one' : min} of ${what}`),
  );
}

export const MAX_TTL = 2 ** 31 - 1;

export const dnsName = v.pipe(
  v.string((i) => `must be a domain name such as "example.org" ${got(i)}`),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dnsNameProblem(dataset.value as string);
    if (problem)
      addIssue({
        message: `must be a valid domain name such as "example.org"; ${JSON.stringify(dataset.value)} ${problem}`,
      });
  }),
);

/** A zone apex: a domain name other than the root. */
export const zoneName = v.pipe(
  dnsName,
  v.check((s) => canonicalName(s) !== '.', 'must not be the root zone'),
);

export const ttl = integer(1, MAX_TTL, 'a TTL in whole seconds');
/** SOA timers: 0 is meaningful (minimum 0: no negative caching), as RFC 1035 allows. */
export const soaTimer = integer(0, MAX_TTL, 'a number of seconds');

export const ipAddress = text('an IPv4 or IPv6 address', (s) => isIP(s) !== 0);

/** "ip/bits" with bits within the family's length. */
export const cidr = text('a CIDR such as "10.0.0.0/8"', (s) => {
  const [ip, bits, extra] = s.split('/');
  const family = isIP(ip ?? '');
  return (
    family !== 0 && extra === undefined && /^\d{1,3}$/.test(bits ?? '') && Number(bits) <= (family === 4 ? 32 : 128)
  );
});

/** A network ("10.9.176.0/24") of a rewrite rule or of answerOrder.prefer: host bits set are refused (a likely typo). */
export const network = v.pipe(
  v.string((i) => `must be a CIDR such as "10.9.176.0/24" ${got(i)}`),
  v.rawCheck(({ dataset, addIssue }) => {
    const parsed = parseCidr(dataset.value as string);
    if (!parsed.ok) addIssue({ message: parsed.error });
  }),
);

/** A listen or upstream address as the runtime uses it. */
export interface HostPort {
  host: string;
  port: number;
}

/** "host:port", "[v6]:port" or ":port" (all IPv4 addresses); the output is parsed. */
const HOST_PORT = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/;
export const hostPort = v.pipe(
  text('host:port, e.g. "127.0.0.1:5353"', (s) => {
    const m = HOST_PORT.exec(s);
    return m !== null && Number(m[3]) <= 65535;
  }),
  v.transform((s): HostPort => {
    const m = HOST_PORT.exec(s)!;
    return { host: m[1] ?? (m[2] || '0.0.0.0'), port: Number(m[3]) };
  }),
);

/** A DNS upstream: "ip", "ip:port" or "[ipv6]:port" (port 53 when absent); the output is parsed. */
const UPSTREAM = /^(?:\[([^\]]+)\]|([^:]+)|([^[\]]*:[^[\]]*))(?::(\d{1,5}))?$/;
export const upstream = v.pipe(
  text('"ip", "ip:port" or "[ipv6]:port"', (s) => {
    const m = UPSTREAM.exec(s);
    const host = m?.[1] ?? m?.[2] ?? m?.[3];
    return host !== undefined && isIP(host) !== 0 && (m?.[4] === undefined || Number(m[4]) <= 65535);
  }),
  v.transform((s): HostPort => {
    const m = UPSTREAM.exec(s)!;
    return { host: (m[1] ?? m[2] ?? m[3])!, port: m[4] === undefined ? 53 : Number(m[4]) };
  }),
);

/** An etcd client URL: http(s)://host:port, nothing after the authority. */
export const etcdUrl = text('an etcd client URL, http(s)://host:port', (s) => /^https?:\/\/[^/\s]+\/?$/.test(s));

/** An etcd key prefix; a trailing "/" is dropped. */
export const keyPrefix = v.pipe(
  text('an etcd key prefix such as "/skydns": "/"-separated segments of letters, digits, ".", "_", "-"', (s) =>
    /^(?:\/[A-Za-z0-9._-]+)+\/?$/.test(s),
  ),
  v.transform((s) => s.replace(/\/$/, '')),
);

/** A member cluster of a hub (src/skydns/cluster-prefix.ts): one key segment, one object-name part. */
export const clusterName = text(
  'a cluster name: 1-56 lower-case letters, digits and "-", starting and ending with a letter or digit',
  (s) => CLUSTER_NAME.test(s),
);

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const logLevel = oneOf(LOG_LEVELS);

/** Written into every entry the controller owns; safe inside a JSON value and a Kubernetes label. */
export const ownerId = text('1-63 letters, digits, ".", "_" or "-", starting with a letter or digit', (s) =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(s),
);

/** A Kubernetes namespace (DNS-1123 label). */
export const namespaceName = text('a namespace: 63 or fewer lower-case letters, digits and "-"', (s) =>
  /^[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(s),
);

/** A Kubernetes object name such as an IngressClass (DNS-1123 subdomain). */
export const objectName = text(
  'a Kubernetes name: 253 or fewer lower-case letters, digits, "-" and "."',
  (s) => s.length <= 253 && /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/.test(s),
);

/** Label name -> value. */
const mapMessage = (i: { input: unknown }) => `must map label names to values ${got(i)}`;
export const stringMap = v.pipe(
  v.unknown(),
  v.check((m) => !Array.isArray(m), mapMessage),
  v.record(v.string(), v.string(mapMessage), mapMessage),
);

export const path = text('a file path', (s) => s.length > 0);

/** The valibot path to the value at `keys` under `root`, for a cross-field check's issue. */
export function pathTo(root: unknown, keys: readonly (string | number)[]): [v.IssuePathItem, ...v.IssuePathItem[]] {
  let input = root as Record<string | number, unknown>;
  const items = keys.map((key) => {
    const value = input[key];
    const item = { type: typeof key === 'number' ? 'array' : 'object', origin: 'value', input, key, value };
    input = value as Record<string | number, unknown>;
    return item as v.IssuePathItem;
  });
  return items as [v.IssuePathItem, ...v.IssuePathItem[]];
}
