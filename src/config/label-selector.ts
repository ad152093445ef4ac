// Kubernetes label-selector syntax ("app=web,tier in (a,b),!legacy"), used for --label-selector
// and for external-dns's --annotation-filter (the same syntax applied to annotations).

type Requirement = { op: 'exists' | 'absent'; key: string } | { op: 'in' | 'notin'; key: string; values: string[] };

export type Selector = Requirement[];

const KEY = /^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?$/;

/** Parses a selector; throws an Error naming the bad requirement. The empty string selects all. */
export function parseSelector(text: string): Selector {
  const requirements: Selector = [];
  for (const part of splitTopLevel(text)) {
    const req = parseRequirement(part);
    if (!req)
      throw new Error(
        `"${part}" is not a selector requirement (key, !key, key=value, key!=value, key in (a,b), key notin (a,b))`,
      );
    requirements.push(req);
  }
  return requirements;
}

export function matchesSelector(selector: Selector, labels: Record<string, string> | undefined): boolean {
  const get = (key: string) => labels?.[key];
  return selector.every((r) => {
    const value = get(r.key);
    switch (r.op) {
      case 'exists':
        return value !== undefined;
      case 'absent':
        return value === undefined;
      case 'in':
        return value !== undefined && r.values.includes(value);
      case 'notin':
        return value === undefined || !r.values.includes(value);
    }
  });
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

function parseRequirement(part: string): Requirement | undefined {
  let m = /^!\s*(\S+)$/.exec(part);
  if (m) return KEY.test(m[1]!) ? { op: 'absent', key: m[1]! } : undefined;
  m = /^(\S+?)\s*(==|!=|=)\s*(\S*)$/.exec(part);
  if (m) {
    if (!KEY.test(m[1]!)) return undefined;
    return { op: m[2] === '!=' ? 'notin' : 'in', key: m[1]!, values: [m[3]!] };
  }
  m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part);
  if (m) {
    if (!KEY.test(m[1]!)) return undefined;
    const values = m[3]!.split(',').map((v) => v.trim());
    return { op: m[2] as 'in' | 'notin', key: m[1]!, values };
  }
  return KEY.test(part) ? { op: 'exists', key: part } : undefined;
}

/** A Kubernetes LabelSelector object (matchLabels, matchExpressions) as the structure above. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * The selector of a LabelSelector object, as the API server reads one: no selector selects nothing
 * (undefined here), `{}` everything; an unknown operator or a values list that does not fit its
 * operator makes the whole selector invalid (undefined).
 */
export function selectorOf(object: LabelSelectorObject | undefined): Selector | undefined {
  if (!object) return undefined;
  const requirements: Selector = Object.entries(object.matchLabels ?? {}).map(([key, value]) => ({
    op: 'in',
    key,
    values: [value],
  }));
  for (const e of object.matchExpressions ?? []) {
    const values = e.values ?? [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return undefined;
        requirements.push({ op: e.operator === 'In' ? 'in' : 'notin', key: e.key, values });
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return undefined;
        requirements.push({ op: e.operator === 'Exists' ? 'exists' : 'absent', key: e.key });
        break;
      default:
        return undefined;
    }
  }
  return requirements;
}
