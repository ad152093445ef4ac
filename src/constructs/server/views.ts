// Views (split horizon): which zones a DNS server answers from which etcd prefix, how it is
// exposed, which resources feed it and how their addresses are rewritten. Each view gets its own
// DnsServer and Service; the controller writes every view (see src/runtime/controller/views/).
import * as v from 'valibot';
import type { CatalogInput } from '../../config/catalog-config.ts';
import { keyPrefix } from '../../config/field-rules.ts';
import { serverEntries, type AnswerOrderInput } from '../../config/server-config.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import {
  viewsSchema,
  type Exposure,
  type RewriteRule,
  type ViewConfig,
  type ViewSelection,
} from '../../config/view-config.ts';
import type { ZoneConfig } from '../../config/zone-config.ts';
import { canonicalName, dnsNameProblem } from '../../dns/dns-name.ts';
import { dnsServiceProblems, type DnsServiceProps } from './dns-service.ts';
import { settingProblems } from '../base/kubernetes-rules.ts';
import { transferProblems, type TransferProps, type ZoneProps } from './zone-transfer.ts';

export interface ViewProps {
  /** Part of the server's object names and of its component label; a DNS-1123 label. */
  readonly name: string;
  /**
   * etcd prefix the view is served from.
   * @default "/skydns"
   */
  readonly prefix?: string;
  /**
   * Names of the zones the view answers.
   * @default - every zone of the stack
   */
  readonly zones?: string[];
  /**
   * Exposure of this view, field by field over `server.service`.
   * @default - `server.service`
   */
  readonly service?: DnsServiceProps;
  /**
   * "internal" may forward (`server.forward`); "external" answers authoritatively only and never
   * publishes private addresses.
   * @default "internal"
   */
  readonly exposure?: Exposure;
  /**
   * Resources feeding the view.
   * @default - all for an internal view, opt-in for an external one
   */
  readonly selection?: ViewSelection;
  /**
   * Rewrite rules, first match decides.
   * @default - none (records as the sources give them)
   */
  readonly rules?: RewriteRule[];
  /**
   * Zone transfers out of this view's server, replacing `server.transfer`: e.g. the external
   * view transfers its (external) records to the public secondaries. A zone's own `transfer`
   * still wins for that zone.
   * @default - `server.transfer`
   */
  readonly transfer?: TransferProps;
  /**
   * The networks this view answers (CIDRs, as CoreDNS's `acl` or BIND's `allow-query`): queries
   * from any other client are REFUSED and counted in `etcdns_dns_acl_refused_total`; zone
   * transfers keep `transfer.allowCidrs`.
   * @default - every client
   */
  readonly allowQueryFrom?: string[];
  /**
   * The order of A and AAAA records for this view's clients (`rotation`, `prefer`: see
   * `server.answerOrder`); the fields it sets replace the server's.
   * @default - `server.answerOrder`
   */
  readonly answerOrder?: AnswerOrderInput;
  /**
   * The catalog zone of this view's server (see `server.catalog`), replacing the server's: e.g.
   * the external view's own catalog for the public secondaries. Needs the view's `transfer` (or
   * `server.transfer`).
   * @default - `server.catalog`
   */
  readonly catalog?: CatalogInput;
}

export const DEFAULT_VIEWS: ViewProps[] = [{ name: 'internal' }];
export const DEFAULT_PREFIX = '/skydns';

export interface ResolvedView {
  name: string;
  prefix: string;
  zones: ZoneProps[];
  service: DnsServiceProps;
  exposure: Exposure;
  selection: ViewSelection;
  rules: RewriteRule[];
  transfer?: TransferProps;
  allowQueryFrom?: string[];
  answerOrder?: AnswerOrderInput;
  catalog?: CatalogInput;
}

/** Views with their defaults filled in; assumes validated props. */
export function resolveViews(
  views: ViewProps[] | undefined,
  zones: ZoneProps[],
  service: DnsServiceProps | undefined,
  transfer: TransferProps | undefined,
): ResolvedView[] {
  return (views ?? DEFAULT_VIEWS).map((view) => ({
    name: view.name,
    prefix: v.parse(keyPrefix, view.prefix ?? DEFAULT_PREFIX),
    zones: view.zones ? zones.filter((z) => view.zones!.map(canonicalName).includes(canonicalName(z.name))) : zones,
    service: { ...service, ...view.service },
    exposure: view.exposure ?? 'internal',
    selection: view.selection ?? { mode: view.exposure === 'external' ? 'opt-in' : 'all' },
    rules: view.rules ?? [],
    ...((view.transfer ?? transfer) ? { transfer: view.transfer ?? transfer } : {}),
    ...(view.allowQueryFrom ? { allowQueryFrom: view.allowQueryFrom } : {}),
    ...(view.answerOrder ? { answerOrder: view.answerOrder } : {}),
    ...(view.catalog ? { catalog: view.catalog } : {}),
  }));
}

/** Today's behaviour: one internal view of every resource, unchanged; the controller needs only its prefix. */
export function isPlainView(views: ResolvedView[], stackZones: ZoneConfig[]): boolean {
  const [only] = views;
  return (
    views.length === 1 &&
    only!.exposure === 'internal' &&
    only!.selection.mode === 'all' &&
    only!.rules.length === 0 &&
    only!.zones.length === stackZones.length
  );
}

/** The views as the controller's config file holds them. */
export function controllerViewConfigs(views: ResolvedView[]): ViewConfig[] {
  return views.map((v) => ({
    name: v.name,
    prefix: v.prefix,
    zones: v.zones.map((z) => z.name).sort(),
    exposure: v.exposure,
    selection: v.selection,
    rules: v.rules,
  }));
}

export function viewsProblems(views: ViewProps[] | undefined, zones: ZoneConfig[] | undefined, path: string): string[] {
  if (views === undefined) return [];
  const zoneNames = (zones ?? []).filter((z) => typeof z.name === 'string').map((z) => z.name);
  const known = new Set(zoneNames.map(canonicalName));
  const problems = problemsOf(
    viewsSchema,
    views.map((view) => ({ ...view, prefix: view.prefix ?? DEFAULT_PREFIX })),
    path,
  );
  (views ?? []).forEach((view, i) => {
    const at = `${path}[${i}]`;
    // Part of the server's object names, which Kubernetes limits.
    if (typeof view.name === 'string' && view.name.length > 15)
      problems.push(`${at}.name: must be 15 or fewer characters (got ${JSON.stringify(view.name)})`);
    (view.zones ?? []).forEach((z, j) => {
      if (typeof z === 'string' && !dnsNameProblem(z) && !known.has(canonicalName(z)))
        problems.push(
          `${at}.zones[${j}]: ${JSON.stringify(z)} is not one of the stack's zones (${zoneNames.map((n) => JSON.stringify(n)).join(', ')})`,
        );
    });
    problems.push(...dnsServiceProblems(view.service, `${at}.service`));
    problems.push(...transferProblems(view.transfer, `${at}.transfer`));
    problems.push(...settingProblems(serverEntries.allowQueryFrom, view.allowQueryFrom, `${at}.allowQueryFrom`));
    problems.push(...settingProblems(serverEntries.answerOrder, view.answerOrder, `${at}.answerOrder`));
    problems.push(...settingProblems(serverEntries.catalog, view.catalog, `${at}.catalog`));
  });
  return problems;
}
