// Validation of the typed config, before anything is synthesized. Every problem names its field
// (as a path into the props, e.g. "zones[1].defaultTtl") and says what is allowed; all problems
// are reported at once.
import { isIP } from 'node:net';
import type { ZoneConfig } from '../runtime/shared/config/zone-config.ts';
import type { ControllerProps, OwnershipProps, SourcesProps } from './dns-controller.ts';
import type { ServerProps } from './dns-server.ts';
import type { DnsServiceProps } from './dns-service.ts';
import type { DnsStackProps } from './dns-stack.ts';
import { canonicalName, dnsNameProblem } from '../runtime/shared/dns-name.ts';
import type { EtcdProps } from './etcd-cluster.ts';
import { imageProblems } from './image.ts';
import { LABEL_COMPONENT, LABEL_NAME } from './labels.ts';
// The controller's own checks of views, so a view that synthesizes is one the controller runs with.
import { prefixOverlapProblems, viewSettingsProblems } from '../runtime/controller/views/view-validation.ts';
import { DEFAULT_PREFIX, type ViewProps } from './views.ts';
import type { WorkloadProps } from './workload.ts';

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid etcdns configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function assertNoProblems(problems: string[]): void {
  if (problems.length > 0) throw new ConfigError(problems);
}

const show = (value: unknown) => JSON.stringify(value);
const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
const QUALIFIED_NAME = /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
const CPU = /^(?:\d+m|\d+(?:\.\d{1,3})?)$/;
const MEMORY = /^\d+(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
const DURATION = /^\d+(?:ms|s|m|h)$/;
const MAX_TTL = 2 ** 31 - 1;

function isInt(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function intProblem(value: unknown, path: string, min: number, max: number, what = 'an integer'): string[] {
  return value === undefined || isInt(value, min, max)
    ? []
    : [`${path}: must be ${what} from ${min} to ${max} (got ${show(value)})`];
}

function oneOf(value: unknown, path: string, allowed: readonly string[]): string[] {
  return value === undefined || allowed.includes(value as string)
    ? []
    : [`${path}: must be one of ${allowed.map(show).join(', ')} (got ${show(value)})`];
}

function k8sName(value: unknown, path: string, kind: 'label' | 'subdomain', maxLength: number): string[] {
  if (value === undefined) return [];
  const pattern = kind === 'label' ? DNS1123_LABEL : DNS1123_SUBDOMAIN;
  if (typeof value !== 'string' || value.length > maxLength || !pattern.test(value))
    return [
      `${path}: must be ${maxLength} or fewer lower-case letters, digits and "-"${kind === 'subdomain' ? ' (and ".")' : ''}, starting and ending with a letter or digit (got ${show(value)})`,
    ];
  return [];
}

function mapProblems(map: Record<string, string> | undefined, path: string, checkValues: boolean): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(map ?? {})) {
    if (!QUALIFIED_NAME.test(key))
      problems.push(`${path}: key ${show(key)} must be a qualified name such as "example.com/name"`);
    if (checkValues && (typeof value !== 'string' || !LABEL_VALUE.test(value)))
      problems.push(`${path}.${key}: must be 63 or fewer letters, digits, "-", "_" and "." (got ${show(value)})`);
  }
  return problems;
}

function dnsName(value: unknown, path: string): string[] {
  if (typeof value !== 'string') return [`${path}: must be a domain name such as "example.org" (got ${show(value)})`];
  const problem = dnsNameProblem(value);
  return problem ? [`${path}: must be a valid domain name such as "example.org"; ${show(value)} ${problem}`] : [];
}

function ttl(value: unknown, path: string): string[] {
  return intProblem(value, path, 1, MAX_TTL, 'a TTL in whole seconds');
}

export function workloadProblems(props: WorkloadProps, path: string): string[] {
  const problems: string[] = [];
  if (props.image) problems.push(...imageProblems(props.image, `${path}.image`));
  for (const side of ['requests', 'limits'] as const) {
    const q = props.resources?.[side];
    if (q?.cpu !== undefined && !CPU.test(q.cpu))
      problems.push(
        `${path}.resources.${side}.cpu: must be a CPU quantity such as "100m" or "0.5" (got ${show(q.cpu)})`,
      );
    if (q?.memory !== undefined && !MEMORY.test(q.memory))
      problems.push(
        `${path}.resources.${side}.memory: must be a memory quantity such as "128Mi" or "1Gi" (got ${show(q.memory)})`,
      );
  }
  const sc = props.securityContext;
  problems.push(
    ...intProblem(sc?.runAsUser, `${path}.securityContext.runAsUser`, 1, MAX_TTL, 'a non-root user id'),
    ...intProblem(sc?.runAsGroup, `${path}.securityContext.runAsGroup`, 0, MAX_TTL, 'a group id'),
    ...intProblem(sc?.fsGroup, `${path}.securityContext.fsGroup`, 0, MAX_TTL, 'a group id'),
    ...k8sName(props.priorityClassName, `${path}.priorityClassName`, 'subdomain', 253),
    ...mapProblems(props.labels, `${path}.labels`, true),
    ...mapProblems(props.podAnnotations, `${path}.podAnnotations`, false),
    ...mapProblems(props.nodeSelector, `${path}.nodeSelector`, true),
  );
  for (const reserved of [LABEL_NAME, LABEL_COMPONENT])
    if (props.labels && reserved in props.labels)
      problems.push(`${path}.labels: may not set ${show(reserved)}: it is part of the fixed selector`);
  return problems;
}

export function zonesProblems(zones: ZoneConfig[] | undefined, path: string): string[] {
  if (!Array.isArray(zones) || zones.length === 0)
    return [`${path}: must list at least one zone, e.g. [{ name: "example.org" }]`];
  const problems: string[] = [];
  const seen = new Set<string>();
  zones.forEach((zone, i) => {
    const at = `${path}[${i}]`;
    problems.push(...dnsName(zone.name, `${at}.name`));
    if (typeof zone.name === 'string') {
      if (zone.name !== '' && canonicalName(zone.name) === '.') problems.push(`${at}.name: must not be the root zone`);
      if (seen.has(canonicalName(zone.name))) problems.push(`${at}.name: zone ${show(zone.name)} is listed twice`);
      seen.add(canonicalName(zone.name));
    }
    problems.push(...ttl(zone.defaultTtl, `${at}.defaultTtl`));
    const soa = zone.soa;
    if (soa) {
      if (soa.mname !== undefined) problems.push(...dnsName(soa.mname, `${at}.soa.mname`));
      if (soa.rname !== undefined) problems.push(...dnsName(soa.rname, `${at}.soa.rname`));
      for (const field of ['refresh', 'retry', 'expire', 'minimum'] as const)
        problems.push(...ttl(soa[field], `${at}.soa.${field}`));
    }
  });
  return problems;
}

export function prefixProblems(prefix: unknown, path: string): string[] {
  if (prefix === undefined) return [];
  return typeof prefix === 'string' && /^(?:\/[A-Za-z0-9._-]+)+$/.test(prefix)
    ? []
    : [
        `${path}: must be an etcd key prefix such as "/skydns": "/"-separated segments of letters, digits, ".", "_", "-", no trailing "/" (got ${show(prefix)})`,
      ];
}

export function dnsServiceProblems(s: DnsServiceProps | undefined, path: string): string[] {
  if (!s) return [];
  const type = s.type ?? 'LoadBalancer';
  const problems = [
    ...oneOf(s.type, `${path}.type`, ['LoadBalancer', 'NodePort', 'ClusterIP']),
    ...oneOf(s.protocols, `${path}.protocols`, ['mixed', 'split']),
    ...oneOf(s.externalTrafficPolicy, `${path}.externalTrafficPolicy`, ['Cluster', 'Local']),
    ...oneOf(s.ipFamilyPolicy, `${path}.ipFamilyPolicy`, ['SingleStack', 'PreferDualStack', 'RequireDualStack']),
    ...mapProblems(s.annotations, `${path}.annotations`, false),
  ];
  if (s.loadBalancerIP !== undefined && isIP(s.loadBalancerIP) === 0)
    problems.push(`${path}.loadBalancerIP: must be an IPv4 or IPv6 address (got ${show(s.loadBalancerIP)})`);
  if (type !== 'LoadBalancer')
    for (const field of ['loadBalancerIP', 'loadBalancerClass'] as const)
      if (s[field] !== undefined)
        problems.push(`${path}.${field}: only allowed with type "LoadBalancer" (type is ${show(type)})`);
  if (s.loadBalancerClass !== undefined && !QUALIFIED_NAME.test(s.loadBalancerClass))
    problems.push(
      `${path}.loadBalancerClass: must be a qualified name such as "metallb.io/metallb" (got ${show(s.loadBalancerClass)})`,
    );
  if (type === 'ClusterIP' && s.externalTrafficPolicy !== undefined)
    problems.push(`${path}.externalTrafficPolicy: only allowed with type "LoadBalancer" or "NodePort"`);
  if (s.ipFamilies !== undefined) {
    const f = s.ipFamilies;
    if (
      !Array.isArray(f) ||
      f.length < 1 ||
      f.length > 2 ||
      new Set(f).size !== f.length ||
      f.some((x) => x !== 'IPv4' && x !== 'IPv6')
    )
      problems.push(
        `${path}.ipFamilies: must be ["IPv4"], ["IPv6"], ["IPv4", "IPv6"] or ["IPv6", "IPv4"] (got ${show(f)})`,
      );
    else if (f.length === 2 && s.ipFamilyPolicy === 'SingleStack')
      problems.push(`${path}.ipFamilyPolicy: "SingleStack" allows one IP family, but ipFamilies lists two`);
  }
  return problems;
}

export function etcdProblems(p: EtcdProps, path: string): string[] {
  const problems = [...workloadProblems(p, path)];
  if (p.replicas !== undefined && !(isInt(p.replicas, 1, 9) && p.replicas % 2 === 1))
    problems.push(`${path}.replicas: must be an odd number of members: 1, 3, 5, 7 or 9 (got ${show(p.replicas)})`);
  if (p.storage?.size !== undefined && !MEMORY.test(p.storage.size))
    problems.push(`${path}.storage.size: must be a storage quantity such as "8Gi" (got ${show(p.storage.size)})`);
  problems.push(...k8sName(p.storage?.storageClassName, `${path}.storage.storageClassName`, 'subdomain', 253));
  problems.push(...oneOf(p.compaction?.mode, `${path}.compaction.mode`, ['periodic', 'revision']));
  const retention = p.compaction?.retention;
  if (retention !== undefined) {
    const revision = p.compaction?.mode === 'revision';
    if (revision ? !/^[1-9]\d*$/.test(retention) : !/^(?:[1-9]\d*|\d+(?:s|m|h))$/.test(retention))
      problems.push(
        `${path}.compaction.retention: must be ${revision ? 'a number of revisions such as "1000"' : 'a duration such as "1h" or "30m"'} (got ${show(retention)})`,
      );
  }
  problems.push(...intProblem(p.quotaBackendBytes, `${path}.quotaBackendBytes`, 2 ** 20, 8 * 2 ** 30, 'a byte count'));
  problems.push(...oneOf(p.antiAffinity, `${path}.antiAffinity`, ['required', 'preferred', 'none']));
  if (p.tls) {
    if (p.tls.serverSecret === undefined)
      problems.push(`${path}.tls.serverSecret: required with tls (an existing Secret name)`);
    if (p.tls.clientSecret === undefined)
      problems.push(`${path}.tls.clientSecret: required with tls (an existing Secret name)`);
    for (const field of ['serverSecret', 'peerSecret', 'clientSecret'] as const)
      problems.push(...k8sName(p.tls[field], `${path}.tls.${field}`, 'subdomain', 253));
    for (const field of ['caKey', 'certKey', 'keyKey'] as const) {
      const key = p.tls[field];
      if (key !== undefined && !SECRET_KEY.test(key))
        problems.push(
          `${path}.tls.${field}: must be a Secret key of letters, digits, "-", "_" and "." (got ${show(key)})`,
        );
      if (key !== undefined && p.tls.certManager)
        problems.push(
          `${path}.tls.${field}: must be left out with certManager (cert-manager writes ca.crt, tls.crt, tls.key)`,
        );
    }
    const cm = p.tls.certManager;
    if (cm) {
      if (cm.issuerName === undefined)
        problems.push(`${path}.tls.certManager.issuerName: required (a cert-manager issuer)`);
      problems.push(
        ...k8sName(cm.issuerName, `${path}.tls.certManager.issuerName`, 'subdomain', 253),
        ...oneOf(cm.issuerKind, `${path}.tls.certManager.issuerKind`, ['Issuer', 'ClusterIssuer']),
      );
      for (const field of ['duration', 'renewBefore'] as const) {
        const value = cm[field];
        if (value !== undefined && (value === '' || !/^(?:\d+h)?(?:\d+m)?(?:\d+s)?$/.test(value)))
          problems.push(
            `${path}.tls.certManager.${field}: must be a duration such as "2160h" or "720h30m" (got ${show(value)})`,
          );
      }
    }
  }
  if (p.auth) {
    const u = p.auth.username;
    if (u !== undefined && (typeof u !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(u)))
      problems.push(`${path}.auth.username: must be 1-64 letters, digits, ".", "_" or "-" (got ${show(u)})`);
    problems.push(...k8sName(p.auth.password?.name, `${path}.auth.password.name`, 'subdomain', 253));
    if (!p.auth.password?.name || !p.auth.password.key || !SECRET_KEY.test(p.auth.password.key))
      problems.push(`${path}.auth.password: must reference an existing Secret key, { name: "...", key: "..." }`);
    const es = p.auth.externalSecret;
    if (es) {
      const at = `${path}.auth.externalSecret`;
      problems.push(
        ...k8sName(es.storeName, `${at}.storeName`, 'subdomain', 253),
        ...oneOf(es.storeKind, `${at}.storeKind`, ['SecretStore', 'ClusterSecretStore']),
      );
      if (es.storeName === undefined) problems.push(`${at}.storeName: required (a SecretStore or ClusterSecretStore)`);
      if (typeof es.remoteKey !== 'string' || es.remoteKey === '')
        problems.push(`${at}.remoteKey: required, the key of the password in the external store`);
      if (es.refreshInterval !== undefined && !/^(?:\d+h)?(?:\d+m)?(?:\d+s)?$/.test(es.refreshInterval))
        problems.push(
          `${at}.refreshInterval: must be a duration such as "1h" or "15m" (got ${show(es.refreshInterval)})`,
        );
    }
  }
  return problems;
}

export function serverProblems(p: ServerProps, path: string): string[] {
  const problems = [
    ...workloadProblems(p, path),
    ...intProblem(p.replicas, `${path}.replicas`, 1, 100),
    ...oneOf(p.antiAffinity, `${path}.antiAffinity`, ['required', 'preferred', 'none']),
    ...oneOf(p.lookup, `${path}.lookup`, ['own', 'subtree']),
    ...oneOf(p.logLevel, `${path}.logLevel`, ['debug', 'info', 'warn', 'error']),
    ...intProblem(p.workers, `${path}.workers`, 1, 64),
    ...dnsServiceProblems(p.service, `${path}.service`),
  ];
  const hpa = p.autoscaling;
  if (hpa) {
    const min = hpa.minReplicas ?? p.replicas ?? 1;
    problems.push(
      ...intProblem(hpa.minReplicas, `${path}.autoscaling.minReplicas`, 1, 100),
      ...intProblem(hpa.maxReplicas, `${path}.autoscaling.maxReplicas`, 1, 100),
      ...intProblem(hpa.targetCpuUtilization, `${path}.autoscaling.targetCpuUtilization`, 1, 100, 'a percentage'),
    );
    if (typeof hpa.maxReplicas === 'number' && hpa.maxReplicas < min)
      problems.push(`${path}.autoscaling.maxReplicas: must be at least minReplicas (${min}) (got ${hpa.maxReplicas})`);
  }
  if (p.forward) {
    if (!Array.isArray(p.forward.upstreams) || p.forward.upstreams.length === 0)
      problems.push(`${path}.forward.upstreams: must list at least one resolver, "ip" or "ip:port"`);
    for (const [i, u] of (p.forward.upstreams ?? []).entries()) {
      const m = /^(?:\[([^\]]+)\]|([^:]+)|([^[\]]*:[^[\]]*))(?::(\d+))?$/.exec(u);
      const host = m?.[1] ?? m?.[2] ?? m?.[3];
      if (!host || isIP(host) === 0 || (m?.[4] !== undefined && !isInt(Number(m[4]), 1, 65535)))
        problems.push(`${path}.forward.upstreams[${i}]: must be "ip", "ip:port" or "[ipv6]:port" (got ${show(u)})`);
    }
    for (const [i, c] of (p.forward.clientCidrs ?? []).entries()) {
      const [ip, bits] = c.split('/');
      const family = isIP(ip ?? '');
      if (family === 0 || !isInt(Number(bits), 0, family === 4 ? 32 : 128) || bits === '')
        problems.push(`${path}.forward.clientCidrs[${i}]: must be a CIDR such as "10.0.0.0/8" (got ${show(c)})`);
    }
  }
  return problems;
}

export function controllerProblems(
  p: ControllerProps & { sources?: SourcesProps; ownership?: OwnershipProps },
  path: string,
): string[] {
  return [
    ...workloadProblems(p, path),
    ...intProblem(p.replicas, `${path}.replicas`, 1, 10),
    ...intProblem(p.resyncSeconds, `${path}.resyncSeconds`, 10, 86400, 'a number of seconds'),
    ...oneOf(p.logLevel, `${path}.logLevel`, ['debug', 'info', 'warn', 'error']),
    ...sourcesProblems(p.sources, 'sources'),
    ...ownershipProblems(p.ownership, 'ownership'),
  ];
}

function sourcesProblems(s: SourcesProps | undefined, path: string): string[] {
  if (!s) return [];
  const problems: string[] = [];
  if (s.kinds !== undefined) {
    if (!Array.isArray(s.kinds) || s.kinds.length === 0 || new Set(s.kinds).size !== s.kinds.length)
      problems.push(`${path}.kinds: must list "service" and/or "ingress", each once (got ${show(s.kinds)})`);
    else s.kinds.forEach((k, i) => problems.push(...oneOf(k, `${path}.kinds[${i}]`, ['service', 'ingress'])));
  }
  problems.push(...k8sName(s.namespace, `${path}.namespace`, 'label', 63));
  (s.ingressClasses ?? []).forEach((c, i) =>
    problems.push(...k8sName(c, `${path}.ingressClasses[${i}]`, 'subdomain', 253)),
  );
  (s.excludeDomains ?? []).forEach((d, i) => problems.push(...dnsName(d, `${path}.excludeDomains[${i}]`)));
  return problems;
}

function ownershipProblems(o: OwnershipProps | undefined, path: string): string[] {
  if (!o) return [];
  const problems = oneOf(o.policy, `${path}.policy`, ['sync', 'upsert-only', 'create-only']);
  if (o.ownerId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/.test(o.ownerId))
    problems.push(
      `${path}.ownerId: must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit (got ${show(o.ownerId)})`,
    );
  return problems;
}

function viewsProblems(views: ViewProps[] | undefined, zones: ZoneConfig[] | undefined, path: string): string[] {
  if (views === undefined) return [];
  if (!Array.isArray(views) || views.length === 0) return [`${path}: must list at least one view (got ${show(views)})`];
  const zoneNames = (zones ?? []).filter((z) => typeof z.name === 'string').map((z) => z.name);
  const known = new Set(zoneNames.map(canonicalName));
  const problems: string[] = [];
  views.forEach((view, i) => {
    const at = `${path}[${i}]`;
    problems.push(...k8sName(view.name, `${at}.name`, 'label', 15), ...prefixProblems(view.prefix, `${at}.prefix`));
    if (view.name === undefined) problems.push(`${at}.name: required, e.g. "internal"`);
    if (view.zones !== undefined && view.zones.length === 0)
      problems.push(`${at}.zones: must name at least one zone, or be left out for all zones`);
    (view.zones ?? []).forEach((z, j) => {
      if (typeof z !== 'string' || !known.has(canonicalName(z)))
        problems.push(
          `${at}.zones[${j}]: ${show(z)} is not one of the stack's zones (${zoneNames.map(show).join(', ')})`,
        );
    });
    problems.push(...dnsServiceProblems(view.service, `${at}.service`), ...viewSettingsProblems(view, at));
  });
  const names = views.map((v) => v.name);
  names.forEach((name, i) => {
    if (names.indexOf(name) !== i)
      problems.push(`${path}[${i}].name: "${name}" is already the name of ${path}[${names.indexOf(name)}]`);
  });
  problems.push(
    ...prefixOverlapProblems(
      views.map((v) => v.prefix ?? DEFAULT_PREFIX),
      path,
    ),
  );
  return problems;
}

export function stackProblems(props: DnsStackProps): string[] {
  const o = props.observability;
  const problems = [
    ...k8sName(props.name, 'name', 'label', 30),
    ...k8sName(props.namespace?.name, 'namespace.name', 'label', 63),
    ...mapProblems(props.namespace?.labels, 'namespace.labels', true),
    ...zonesProblems(props.zones, 'zones'),
    ...viewsProblems(props.views, props.zones, 'views'),
    ...etcdProblems(props.etcd ?? {}, 'etcd'),
    ...serverProblems(props.server ?? {}, 'server'),
    ...controllerProblems({ ...props.controller, sources: props.sources, ownership: props.ownership }, 'controller'),
    ...intProblem(o?.metricsPort, 'observability.metricsPort', 1024, 65535, 'an unprivileged port'),
  ];
  if (o?.metricsPort === 5353)
    problems.push('observability.metricsPort: must not be 5353, the DNS port inside the pod');
  if (o?.serviceMonitor?.interval !== undefined && !DURATION.test(o.serviceMonitor.interval))
    problems.push(
      `observability.serviceMonitor.interval: must be a duration such as "30s" or "1m" (got ${show(o.serviceMonitor.interval)})`,
    );
  problems.push(...mapProblems(o?.serviceMonitor?.labels, 'observability.serviceMonitor.labels', true));
  return problems;
}
