// Split horizon: a view is one set of answers (one etcd prefix) for a set of zones, fed by
// chosen resources, with addresses rewritten by typed rules when the controller plans.
import * as v from 'valibot';
import { dnsNameProblem } from '../dns/dns-name.ts';
import { RECORD_TYPES } from '../dns/record-types.ts';
import { RULE_KINDS } from './source-kinds.ts';
import { dnsName, ipAddress, keyPrefix, list, network, oneOf, pathTo, stringMap, text } from './field-rules.ts';

const strings = list(v.string(), 'strings (leave it out to match any)');

const RULE_KIND_TEXT = `one of ${RULE_KINDS.map((k) => `"${k}"`).join(', ')}, or the lower-case kind of an unstructured resource`;

const ruleMatchSchema = v.strictObject(
  {
    /** Name suffixes ("example.org" matches itself and below) or globs ("*.apps.example.org"; "*" stays within one label). */
    names: v.optional(
      list(
        text('a name suffix or glob such as "*.apps.example.org"', (s) => !dnsNameProblem(s.replace(/\*/g, 'x'))),
        'names',
      ),
    ),
    types: v.optional(list(oneOf(RECORD_TYPES), 'record types')),
    /**
     * Source kinds in lower case, e.g. "service", "ingress", "httproute", "dnsendpoint", or the kind
     * of an unstructured resource ("virtualmachineinstance"), checked once discovery named it.
     */
    kinds: v.optional(
      list(
        text(RULE_KIND_TEXT, (s) => /^[a-z][a-z0-9]*$/.test(s)),
        'source kinds',
      ),
    ),
    namespaces: v.optional(strings),
    ingressClasses: v.optional(strings),
    /** All must be present with these values on the source object. */
    labels: v.optional(stringMap),
    /** The record's target address lies in one of these CIDRs. */
    targetCidrs: v.optional(list(network, 'CIDRs')),
  },
  `unknown field; known: names, types, kinds, namespaces, ingressClasses, labels, targetCidrs`,
);

const bits = (c: string) => `${c.includes(':') ? 6 : 4}/${c.split('/')[1]}`;

/**
 * What a matching rule does to a record. An action only matches records it can rewrite:
 * `replace` and `cname` apply to A, AAAA and CNAME records, `mapCidr` to addresses inside `from`;
 * `drop` and `keep` apply to every record.
 */
const ruleActionSchema = v.union(
  [
    v.strictObject({ replace: list(ipAddress, 'IP addresses') }),
    /** 1:1 mapping: the host part of the address is kept, the network replaced (same prefix length). */
    v.strictObject({
      mapCidr: v.pipe(
        v.object({ from: network, to: network }),
        v.forward(
          v.check((m) => bits(m.from) === bits(m.to), 'must have the family and prefix length of from (a 1:1 mapping)'),
          ['to'],
        ),
      ),
    }),
    v.strictObject({ cname: text('a host name (no wildcard)', (s) => !dnsNameProblem(s) && !s.includes('*')) }),
    v.strictObject({ drop: v.literal(true, 'must be true') }),
    v.strictObject({ keep: v.literal(true, 'must be true') }),
  ],
  (i) => `must have exactly one of replace, mapCidr, cname, drop, keep (got ${JSON.stringify(i.input)})`,
);

export const rewriteRuleSchema = v.object({
  /** Shown in plans, logs and Events. */
  name: text('a rule name (shown in plans, logs and Events)', (s) => s.length > 0),
  /** Every field given must match (a list matches when any item does); `{}` matches every record. */
  match: ruleMatchSchema,
  action: ruleActionSchema,
  /** Lets this rule publish private addresses (RFC 1918, ULA, loopback, link-local, CGNAT) in an external view. */
  allowPrivate: v.optional(v.boolean('must be true or false')),
});

const EXPOSURES = ['internal', 'external'] as const;
export type Exposure = (typeof EXPOSURES)[number];

export const viewSelectionSchema = v.object({
  /**
   * "all" resources, or only those opted in: by the views annotation, or by these labels or
   * ingress classes. An external view must be "opt-in".
   */
  mode: oneOf(['all', 'opt-in']),
  /** Opt-in: objects carrying all of these labels with these values. */
  labels: v.optional(stringMap),
  /** Opt-in: Ingresses of these classes. */
  ingressClasses: v.optional(v.array(v.string(), 'must be a list of class names')),
});

/** A view as written in config: everything but name and prefix has a default. */
export const viewSchema = v.pipe(
  v.object(
    {
      /** A DNS-1123 label, e.g. "internal", "external"; the values of the views annotation. */
      name: text('a DNS label such as "internal" or "external" (lower-case letters, digits, "-")', (s) =>
        /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(s),
      ),
      /** etcd key prefix the view is written under and served from, e.g. "/skydns" or "/skydns-external". */
      prefix: keyPrefix,
      /** Zone names this view answers for; empty: every name the controller publishes. */
      zones: v.optional(list(dnsName, 'zone names (or leave it out for all zones)')),
      /** "internal" may forward for internal clients; "external" is authoritative only and refuses private addresses. */
      exposure: v.optional(oneOf(EXPOSURES)),
      selection: v.optional(viewSelectionSchema),
      /** Evaluated in order; the first matching rule decides. No match: keep. */
      rules: v.optional(v.array(rewriteRuleSchema, 'must be a list of rules')),
    },
    'must be an object with name and prefix',
  ),
  v.forward(
    v.check(
      (view) => !(view.exposure === 'external' && view.selection?.mode === 'all'),
      'an external view publishes only resources opted in; use "opt-in" (with labels, ingressClasses or the etcdns.io/views annotation)',
    ),
    ['selection', 'mode'],
  ),
);

/** Views, each with its own name and its own prefix: one inside another's would make that view read, and delete, the other's entries. */
export const viewsSchema = v.pipe(
  list(viewSchema, 'views'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const views = dataset.value;
    views.forEach((view, i) => {
      const first = views.findIndex((o) => o.name === view.name);
      if (first < i)
        addIssue({
          message: `"${view.name}" is already the name of views[${first}]`,
          path: pathTo(views, [i, 'name']),
        });
      const clash = views
        .slice(0, i)
        .findIndex(
          (o) =>
            o.prefix === view.prefix ||
            o.prefix.startsWith(`${view.prefix}/`) ||
            view.prefix.startsWith(`${o.prefix}/`),
        );
      if (clash >= 0)
        addIssue({
          message: `"${view.prefix}" overlaps "${views[clash]!.prefix}" of views[${clash}]; each view needs its own prefix`,
          path: pathTo(views, [i, 'prefix']),
        });
    });
  }),
);

export type RewriteRule = v.InferOutput<typeof rewriteRuleSchema>;
export type RuleMatch = RewriteRule['match'];
export type RuleAction = RewriteRule['action'];
export type ViewSelection = v.InferOutput<typeof viewSelectionSchema>;
export type ViewInput = v.InferOutput<typeof viewSchema>;
export type ViewConfig = Required<ViewInput>;

/** Views with defaults filled in: all zones, internal, selection by exposure (external: opt-in), no rules. */
export function withViewDefaults(views: readonly ViewInput[]): ViewConfig[] {
  return views.map((view) => {
    const exposure = view.exposure ?? 'internal';
    return {
      name: view.name,
      prefix: view.prefix,
      zones: view.zones ?? [],
      exposure,
      selection: view.selection ?? { mode: exposure === 'external' ? 'opt-in' : 'all' },
      rules: view.rules ?? [],
    };
  });
}

/** The view every stack has unless configured otherwise. */
export const DEFAULT_VIEW: ViewConfig = {
  name: 'internal',
  prefix: '/skydns',
  zones: [],
  exposure: 'internal',
  selection: { mode: 'all' },
  rules: [],
};

/**
 * Per-object override of the views a Service or Ingress appears in, "internal,external" (an
 * empty value: none). It replaces the views' own selection, and is the way into an opt-in view.
 */
export const VIEWS_ANNOTATION = 'etcdns.io/views';

/** Per-object addresses or host name to publish in external views instead of the object's own, "203.0.113.10". */
export const EXTERNAL_TARGET_ANNOTATION = 'etcdns.io/external-target';

/** Each rule's kind that no source row names, with its path ("views[0].rules[1].match.kinds[0]"). */
export function unlistedRuleKinds(views: readonly ViewInput[]): { kind: string; keys: (string | number)[] }[] {
  return views.flatMap((view, i) =>
    (view.rules ?? []).flatMap((rule, j) =>
      (rule.match.kinds ?? []).flatMap((kind, k) =>
        RULE_KINDS.includes(kind) ? [] : [{ kind, keys: ['views', i, 'rules', j, 'match', 'kinds', k] }],
      ),
    ),
  );
}

/** What a rule kind that names no source's kind is told. */
export const UNKNOWN_RULE_KIND = `must be ${RULE_KIND_TEXT} (sources: unstructured)`;
