// One rewrite rule: compiled once from config (CIDRs parsed, names canonical), then matched
// against a desired record and its source object, and applied. Pure. A rule only ever changes
// what a record answers (name, type, target); owner and resource stay as they are.
import { canonicalName, isInZone } from '../../../dns/dns-name.ts';
import type { RewriteRule } from '../../../config/view-config.ts';
import type { DesiredRecord } from '../desired-record.ts';
import { cidrContains, formatAddress, mapAddress, parseAddress, parseCidr, type Cidr } from '../../../dns/cidr.ts';
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

/** A network of a rule the schema accepted (src/config/view-config.ts checks every field). */
function networkOf(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed.ok) throw new Error(`rewrite rule not validated by the view schema: ${parsed.error}`);
  return parsed.cidr;
}

/** Compiles a rule the view schema validated: name matchers, parsed networks and addresses. */
export function compileRule(rule: RewriteRule): CompiledRule {
  const m = rule.match;
  return {
    rule,
    ...(m.names ? { names: m.names.map(nameMatcher) } : {}),
    ...(m.targetCidrs ? { cidrs: m.targetCidrs.map(networkOf) } : {}),
    action: compileAction(rule.action),
  };
}

function compileAction(action: RewriteRule['action']): CompiledRule['action'] {
  if ('replace' in action)
    return {
      kind: 'replace',
      targets: action.replace.map((text) => {
        const address = parseAddress(text)!;
        return { type: address.family === 4 ? 'A' : 'AAAA', target: formatAddress(address) };
      }),
    };
  if ('mapCidr' in action)
    return { kind: 'mapCidr', from: networkOf(action.mapCidr.from), to: networkOf(action.mapCidr.to) };
  if ('cname' in action) return { kind: 'cname', target: canonicalName(action.cname) };
  return 'drop' in action ? { kind: 'drop' } : { kind: 'keep' };
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
