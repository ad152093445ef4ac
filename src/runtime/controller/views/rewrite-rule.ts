// One rewrite rule: compiled once from config (CIDRs parsed, names canonical), then matched
// against a desired record and its source object, and applied. Pure. A rule only ever changes
// what a record answers (name, type, target); owner and resource stay as they are.
import { canonicalName, dnsNameProblem, isInZone } from '../../shared/dns-name.ts';
import type { RewriteRule } from '../../../config/view-config.ts';
import type { DesiredRecord } from '../desired-record.ts';
import { cidrContains, formatAddress, mapAddress, parseAddress, parseCidr, type Cidr } from './cidr.ts';
import type { SourceObject } from './source-object.ts';

export interface CompiledRule {
  rule: RewriteRule;
  names?: ((name: string) => boolean)[];
  cidrs?: Cidr[];
  action:
    | { kind: 'replace'; targets: Pick<DesiredRecord, 'type' | 'target'>[] }
    | { kind: 'mapCidr'; from: Cidr; to: Cidr }
    | { kind: 'cname'; target: string }
    | { kind: 'drop' }
    | { kind: 'keep' };
}

const REWRITABLE = new Set(['A', 'AAAA', 'CNAME']);
const ACTIONS = ['replace', 'mapCidr', 'cname', 'drop', 'keep'] as const;
const TYPES = ['A', 'AAAA', 'CNAME', 'SRV', 'TXT', 'PTR'];

/** Compiles a rule, or lists what is wrong with it, each message starting with the field (`path`.…). */
export function compileRule(
  rule: RewriteRule,
  path: string,
): { ok: true; rule: CompiledRule } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const at = (field: string, message: string) => errors.push(`${path}.${field}: ${message}`);
  if (typeof rule?.name !== 'string' || rule.name === '') at('name', 'required (shown in plans, logs and Events)');
  const m = rule?.match;
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    at('match', 'must be an object ({} matches every record)');
    return { ok: false, errors };
  }
  const lists = ['names', 'types', 'kinds', 'namespaces', 'ingressClasses', 'targetCidrs'] as const;
  for (const field of lists) {
    const v = m[field];
    if (v !== undefined && (!Array.isArray(v) || v.length === 0 || v.some((x) => typeof x !== 'string')))
      at(`match.${field}`, 'must be a non-empty list of strings (leave it out to match any)');
  }
  if (m.labels !== undefined && !isStringMap(m.labels)) at('match.labels', 'must map label names to values');
  const unknown = Object.keys(m).filter((k) => !(lists as readonly string[]).includes(k) && k !== 'labels');
  if (unknown.length > 0)
    at('match', `unknown field(s) ${unknown.join(', ')}; known: ${[...lists, 'labels'].join(', ')}`);
  if (errors.length > 0) return { ok: false, errors };

  const compiled: Partial<CompiledRule> & { rule: RewriteRule } = { rule };
  if (m.names) {
    compiled.names = m.names.map((n, i) => {
      const problem = dnsNameProblem(n.replace(/\*/g, 'x'));
      if (problem) at(`match.names[${i}]`, `"${n}" ${problem}`);
      return nameMatcher(n);
    });
  }
  for (const [i, t] of (m.types ?? []).entries())
    if (!TYPES.includes(t)) at(`match.types[${i}]`, `"${t}" is not one of ${TYPES.join(', ')}`);
  for (const [i, k] of (m.kinds ?? []).entries())
    if (k !== 'service' && k !== 'ingress') at(`match.kinds[${i}]`, `"${k}" is not one of service, ingress`);
  if (m.targetCidrs) {
    compiled.cidrs = [];
    for (const [i, text] of m.targetCidrs.entries()) {
      const c = parseCidr(text);
      if (c.ok) compiled.cidrs.push(c.cidr);
      else at(`match.targetCidrs[${i}]`, c.error);
    }
  }

  const a = rule.action as Record<string, unknown> | undefined;
  const kinds = a && typeof a === 'object' ? Object.keys(a) : [];
  if (kinds.length !== 1 || !(ACTIONS as readonly string[]).includes(kinds[0]!)) {
    at('action', `must have exactly one of ${ACTIONS.join(', ')} (got ${JSON.stringify(rule.action)})`);
    return { ok: false, errors };
  }
  const action = rule.action;
  if ('replace' in action) {
    const targets: Pick<DesiredRecord, 'type' | 'target'>[] = [];
    if (!Array.isArray(action.replace) || action.replace.length === 0)
      at('action.replace', 'must list at least one IP address');
    for (const [i, text] of (Array.isArray(action.replace) ? action.replace : []).entries()) {
      const address = typeof text === 'string' ? parseAddress(text) : undefined;
      if (!address) at(`action.replace[${i}]`, `"${String(text)}" is not an IP address`);
      else targets.push({ type: address.family === 4 ? 'A' : 'AAAA', target: formatAddress(address) });
    }
    compiled.action = { kind: 'replace', targets };
  } else if ('mapCidr' in action) {
    const from = parseCidr(String(action.mapCidr?.from));
    const to = parseCidr(String(action.mapCidr?.to));
    if (!from.ok) at('action.mapCidr.from', from.error);
    if (!to.ok) at('action.mapCidr.to', to.error);
    if (from.ok && to.ok) {
      if (from.cidr.family !== to.cidr.family || from.cidr.bits !== to.cidr.bits)
        at(
          'action.mapCidr.to',
          `must have the family and prefix length of from (${action.mapCidr.from}) for a 1:1 mapping`,
        );
      compiled.action = { kind: 'mapCidr', from: from.cidr, to: to.cidr };
    }
  } else if ('cname' in action) {
    const problem = typeof action.cname === 'string' ? dnsNameProblem(action.cname) : 'is not a string';
    if (problem || action.cname.includes('*'))
      at('action.cname', `"${String(action.cname)}" ${problem ?? 'is a wildcard'}`);
    compiled.action = { kind: 'cname', target: canonicalName(String(action.cname)) };
  } else if ('drop' in action) {
    if (action.drop !== true) at('action.drop', 'must be true');
    compiled.action = { kind: 'drop' };
  } else {
    if (action.keep !== true) at('action.keep', 'must be true');
    compiled.action = { kind: 'keep' };
  }
  if (rule.allowPrivate !== undefined && typeof rule.allowPrivate !== 'boolean')
    at('allowPrivate', 'must be true or false');
  return errors.length > 0 ? { ok: false, errors } : { ok: true, rule: compiled as CompiledRule };
}

export function isStringMap(v: unknown): v is Record<string, string> {
  return (
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string')
  );
}

/** "example.org": the name and below; with "*": a glob over the whole name, "*" within one label. */
function nameMatcher(pattern: string): (name: string) => boolean {
  const canonical = canonicalName(pattern);
  if (!canonical.includes('*')) return (name) => isInZone(name, canonical);
  const re = new RegExp(`^${canonical.split('*').map(escape).join('[^.]*')}$`);
  return (name) => re.test(name);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether the rule decides about this record: every given match field, and an action that can rewrite it. */
export function ruleMatches(c: CompiledRule, record: DesiredRecord, source: SourceObject): boolean {
  const m = c.rule.match;
  if (c.names && !c.names.some((f) => f(record.name))) return false;
  if (m.types && !m.types.includes(record.type)) return false;
  if (m.kinds && !m.kinds.includes(source.kind)) return false;
  if (m.namespaces && !m.namespaces.includes(source.namespace)) return false;
  if (m.ingressClasses && !m.ingressClasses.includes(source.ingressClass ?? '')) return false;
  if (m.labels && !Object.entries(m.labels).every(([k, v]) => source.labels[k] === v)) return false;
  const address = record.type === 'A' || record.type === 'AAAA' ? parseAddress(record.target) : undefined;
  if (c.cidrs && !(address && c.cidrs.some((cidr) => cidrContains(cidr, address)))) return false;
  switch (c.action.kind) {
    case 'replace':
    case 'cname':
      return REWRITABLE.has(record.type);
    case 'mapCidr':
      return address !== undefined && cidrContains(c.action.from, address);
    default:
      return true;
  }
}

/** The records a matching rule turns `record` into (none when dropped). */
export function applyRule(c: CompiledRule, record: DesiredRecord): DesiredRecord[] {
  const a = c.action;
  switch (a.kind) {
    case 'keep':
      return [record];
    case 'drop':
      return [];
    case 'replace':
      return a.targets.map((t) => ({ ...record, type: t.type, target: t.target }));
    case 'cname':
      return [{ ...record, type: 'CNAME', target: a.target }];
    case 'mapCidr': {
      const mapped = mapAddress(parseAddress(record.target)!, a.from, a.to);
      return [{ ...record, target: formatAddress(mapped) }];
    }
  }
}

/** First match decides; no match keeps the record. */
export function evaluateRules(
  rules: readonly CompiledRule[],
  record: DesiredRecord,
  source: SourceObject,
): { rule?: CompiledRule; records: DesiredRecord[] } {
  const rule = rules.find((c) => ruleMatches(c, record, source));
  return rule ? { rule, records: applyRule(rule, record) } : { records: [record] };
}
