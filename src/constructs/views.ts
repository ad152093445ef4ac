// Views: which zones a DNS server answers from which etcd prefix, and how it is exposed. One
// view ("internal") for now; each view gets its own DnsServer and Service, so split horizon adds
// views without renaming what exists.
import type { ZoneConfig } from '../runtime/shared/config/zone-config.ts';
import { zoneKey } from './domain-name.ts';
import type { DnsServiceProps } from './dns-service.ts';

export interface ViewProps {
  /** Part of the server's object names and of its component label; a DNS-1123 label. */
  name: string;
  /** etcd prefix the view is served from; default "/skydns". */
  prefix?: string;
  /** Names of the zones the view answers; default: every zone of the stack. */
  zones?: string[];
  /** Exposure of this view, field by field over `server.service`; default: `server.service`. */
  service?: DnsServiceProps;
}

export const DEFAULT_VIEWS: ViewProps[] = [{ name: 'internal' }];
export const DEFAULT_PREFIX = '/skydns';

export interface ResolvedView {
  name: string;
  prefix: string;
  zones: ZoneConfig[];
  service: DnsServiceProps;
}

/** Views with their defaults filled in; assumes validated props. */
export function resolveViews(
  views: ViewProps[] | undefined,
  zones: ZoneConfig[],
  service: DnsServiceProps | undefined,
): ResolvedView[] {
  return (views ?? DEFAULT_VIEWS).map((view) => ({
    name: view.name,
    prefix: view.prefix ?? DEFAULT_PREFIX,
    zones: view.zones ? zones.filter((z) => view.zones!.map(zoneKey).includes(zoneKey(z.name))) : zones,
    service: { ...service, ...view.service },
  }));
}
