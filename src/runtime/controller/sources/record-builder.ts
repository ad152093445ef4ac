// Turns hostnames and targets into desired records for one object, reporting what it skips.
// Shared by the Service and Ingress sources: validation happens here, once.
import { canonicalName, dnsNameProblem } from '../../../dns/dns-name.ts';
import type { DesiredRecord, ObjectRef, Problem } from '../desired-record.ts';
import { parseTtl, readAnnotation, splitList, type Annotations } from './annotations.ts';
import { claimRefusal } from '../../../skydns/cluster-claims.ts';
import { NAME_POLICY_KEYS, readNamePolicy, type NamePolicy } from '../../../skydns/name-policy.ts';
import { domainVerdict, type SourceOptions } from './source-options.ts';
import { classifyTarget, type Target } from './targets.ts';

export interface SourceResult {
  records: DesiredRecord[];
  problems: Problem[];
}

export class RecordBuilder {
  readonly object: ObjectRef;
  private readonly options: SourceOptions;
  private readonly out: SourceResult;
  private readonly ttl: number | undefined;
  /** Set when the ttl annotation is bad: every name of the object is skipped with this reason. */
  private readonly ttlError: string | undefined;
  private readonly annotations: Annotations;
  private override: { targets: Target[] | undefined } | undefined;
  /** A spoke's: the policy at the hub the object sets for its names (src/skydns/name-policy.ts). */
  private readonly namePolicy: NamePolicy | undefined;
  /** Set when that policy is bad: every name of the object is skipped with this reason. */
  private readonly namePolicyError: string | undefined;
  private unready = false;

  /**
   * `policyKeys`: where the object sets its names' policy at a hub, its annotations unless said
   * (a DNSEndpoint's labels and annotations, which external-dns's annotations are not read from).
   */
  constructor(
    object: ObjectRef,
    annotations: Annotations,
    options: SourceOptions,
    out: SourceResult,
    policyKeys: Annotations = annotations,
  ) {
    this.object = object;
    this.options = options;
    this.out = out;
    const ttl = readAnnotation(annotations, 'ttl');
    const parsed = ttl ? parseTtl(ttl.value) : undefined;
    this.ttl = parsed?.ok ? parsed.ttl : undefined;
    this.ttlError = parsed && !parsed.ok ? `annotation ${ttl!.key}: ${parsed.error}` : undefined;
    this.annotations = annotations;
    // Only a spoke's entries are merged at a hub; elsewhere the keys mean nothing and are not read.
    const policy = options.spoke ? readNamePolicy(policyKeys) : undefined;
    this.namePolicy = policy?.ok ? policy.policy : undefined;
    this.namePolicyError =
      policy && !policy.ok
        ? policy.error
        : this.namePolicy?.health && object.kind !== 'Service'
          ? `${NAME_POLICY_KEYS.health}: is only for Services (their EndpointSlices say whether they are ready)`
          : undefined;
  }

  /** Whether the object asks the hub to fail its names over while its Service has no ready endpoint. */
  get checksEndpoints(): boolean {
    return this.namePolicy?.health === 'endpoints';
  }

  /** Its Service has no ready endpoint: its records say so from here on (the hub leaves them out). */
  markUnready(): void {
    this.unready = true;
  }

  /**
   * The object's target annotation's targets, when it is set (it replaces the object's own);
   * read when a source asks (routes take theirs from the Gateway instead).
   */
  get targetOverride(): Target[] | undefined {
    if (!this.override) {
      const target = readAnnotation(this.annotations, 'target');
      this.override = { targets: target ? this.targets(splitList(target.value)) : undefined };
    }
    return this.override.targets;
  }

  /** The hostname annotation's names; none with --ignore-hostname-annotation (as external-dns). */
  annotatedHostnames(): string[] {
    if (this.options.ignoreHostnameAnnotation) return [];
    return splitList(readAnnotation(this.annotations, 'hostname')?.value);
  }

  /** Classifies targets, reporting (and dropping) the ones that are neither IP nor name. */
  targets(values: string[]): Target[] {
    const result: Target[] = [];
    for (const value of values) {
      const c = classifyTarget(value);
      if (c.ok) result.push(c.target);
      else this.problem('InvalidTarget', `${c.error}; the target is skipped`);
    }
    return result;
  }

  /** The canonical name when it may be published; otherwise reports why not and returns undefined. */
  acceptName(raw: string): string | undefined {
    const problem = dnsNameProblem(raw.trim());
    if (problem) {
      this.problem('InvalidHostname', `hostname "${raw}" ${problem}; it is skipped`, raw);
      return undefined;
    }
    const name = canonicalName(raw.trim());
    const verdict = domainVerdict(name, this.options);
    if (verdict === 'excluded') return undefined;
    const refusal = this.claimRefusal(name);
    if (refusal) {
      this.problem('NameNotClaimed', `hostname "${name}" is skipped: ${refusal}; the hub would refuse it`, name);
      return undefined;
    }
    if (verdict === 'outside') {
      this.problem(
        'HostnameNotInDomain',
        `hostname "${name}" is outside every domain of --domain-filter; it is skipped`,
        name,
      );
      return undefined;
    }
    if (this.ttlError) {
      this.problem('InvalidTTL', `${this.ttlError}; hostname "${name}" is skipped`, name);
      return undefined;
    }
    if (this.namePolicyError) {
      this.problem('InvalidAnnotation', `${this.namePolicyError}; hostname "${name}" is skipped`, name);
      return undefined;
    }
    return name;
  }

  /** Why a spoke may not publish `name` from this object (its cluster's claims), if it may not. */
  private claimRefusal(name: string): string | undefined {
    const spoke = this.options.spoke;
    // A cluster-scoped object (a Node) has no namespace: only the suffixes hold it.
    return spoke?.claims && claimRefusal(spoke.cluster, spoke.claims, name, this.object.namespace || undefined);
  }

  /** One record per target at `name` (already accepted). */
  addresses(name: string, targets: Target[]): void {
    for (const t of targets) this.push({ name, type: t.type, target: t.target });
  }

  /** Validates and publishes each raw hostname with the targets. */
  hostnames(raws: string[], targets: Target[]): void {
    for (const raw of raws) {
      const name = this.acceptName(raw);
      if (name) this.addresses(name, targets);
    }
  }

  srv(name: string, target: string, port: number): void {
    this.push({ name, type: 'SRV', target, port, priority: 0, weight: 50 });
  }

  problem(reason: Problem['reason'], message: string, name?: string): void {
    this.out.problems.push({ object: this.object, reason, message, ...(name ? { name } : {}) });
  }

  /** A record at an accepted name; `ttl` replaces the object's ttl annotation (DNSEndpoint's recordTTL). */
  push(record: Omit<DesiredRecord, 'object' | 'ttl'>, ttl = this.ttl): void {
    this.out.records.push({
      ...record,
      ...(ttl !== undefined ? { ttl } : {}),
      ...(this.namePolicy ? { namePolicy: this.namePolicy } : {}),
      ...(this.unready ? { unready: true as const } : {}),
      object: this.object,
    });
  }
}
