// Split horizon: a view is one set of answers (one etcd prefix) for a set of zones, fed by
// chosen resources, with addresses rewritten by typed rules when the controller plans.

export type RecordType = 'A' | 'AAAA' | 'CNAME' | 'SRV' | 'TXT' | 'PTR';

export interface RuleMatch {
  /** Name suffixes ("example.org" matches itself and below) or globs ("*.apps.example.org"). */
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
  match: RuleMatch;
  action: RuleAction;
  /** Lets this rule publish private addresses (RFC 1918, ULA, loopback, link-local) in an external view. */
  allowPrivate?: boolean;
}

export interface ViewSelection {
  /** "all" resources, or only those opted in by annotation, label or ingress class. */
  mode: 'all' | 'opt-in';
  /** Opt-in label selector "k=v,k2=v2" (mode opt-in). */
  labels?: Record<string, string>;
  ingressClasses?: string[];
}

export interface ViewConfig {
  name: string;
  /** etcd key prefix the view is written under and served from, e.g. "/skydns" or "/skydns-external". */
  prefix: string;
  /** Zone names this view answers for. */
  zones: string[];
  /** "internal" may forward for internal clients; "external" is authoritative only and refuses private addresses. */
  exposure: 'internal' | 'external';
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
