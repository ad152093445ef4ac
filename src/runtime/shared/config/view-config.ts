// Split horizon: a view is one set of answers (one etcd prefix) for a set of zones, fed by
// chosen resources, with addresses rewritten by typed rules when the controller plans.

export type RecordType = 'A' | 'AAAA' | 'CNAME' | 'SRV' | 'TXT' | 'PTR';

export interface RuleMatch {
  /** Name suffixes ("example.org" matches itself and below) or globs ("*.apps.example.org"; "*" stays within one label). */
  names?: string[];
  types?: RecordType[];
  /** Source kinds, e.g. "service", "ingress". */
  kinds?: string[];
  namespaces?: string[];
  ingressClasses?: string[];
  /** All must be present with these values on the source object. */
  labels?: Record<string, string>;
  /** The record's target address lies in one of these CIDRs. */
  targetCidrs?: string[];
}

/**
 * What a matching rule does to a record. An action only matches records it can rewrite:
 * `replace` and `cname` apply to A, AAAA and CNAME records, `mapCidr` to addresses inside `from`;
 * `drop` and `keep` apply to every record.
 */
export type RuleAction =
  | { replace: string[] }
  /** 1:1 mapping: the host part of the address is kept, the network replaced (same prefix length). */
  | { mapCidr: { from: string; to: string } }
  | { cname: string }
  | { drop: true }
  | { keep: true };

export interface RewriteRule {
  /** Shown in plans, logs and Events. */
  name: string;
  /** Every field given must match (a list matches when any item does); `{}` matches every record. */
  match: RuleMatch;
  action: RuleAction;
  /** Lets this rule publish private addresses (RFC 1918, ULA, loopback, link-local, CGNAT) in an external view. */
  allowPrivate?: boolean;
}

export interface ViewSelection {
  /**
   * "all" resources, or only those opted in: by the views annotation, or by these labels or
   * ingress classes. An external view must be "opt-in".
   */
  mode: 'all' | 'opt-in';
  /** Opt-in: objects carrying all of these labels with these values. */
  labels?: Record<string, string>;
  /** Opt-in: Ingresses of these classes. */
  ingressClasses?: string[];
}

export type Exposure = 'internal' | 'external';

export interface ViewConfig {
  /** A DNS-1123 label, e.g. "internal", "external"; the values of the views annotation. */
  name: string;
  /** etcd key prefix the view is written under and served from, e.g. "/skydns" or "/skydns-external". */
  prefix: string;
  /** Zone names this view answers for; empty: every name the controller publishes. */
  zones: string[];
  /** "internal" may forward for internal clients; "external" is authoritative only and refuses private addresses. */
  exposure: Exposure;
  selection: ViewSelection;
  /** Evaluated in order; the first matching rule decides. No match: keep. */
  rules: RewriteRule[];
}

/** The view every stack has unless configured otherwise: today's behaviour. */
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
