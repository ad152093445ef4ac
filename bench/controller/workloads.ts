// What the churn runs change (churn.ts): Services, whose probe gets a new address; HTTPRoutes,
// whose probe gets a new hostname (the old name goes, the new one comes); and the probe route's
// Gateway, whose new address its route's name must follow while 10,000 other routes hang off
// another Gateway (a Gateway change re-plans only the routes attached to it); and Traefik
// IngressRoutes, whose probe gets a new Host, a new target annotation, or a new address from the
// Service it takes its address from. The other objects change at the churn rate: Services their
// address, routes their hostname or Host.
import { PROBE, ZONE, type Workload } from './churn.ts';
import type { KubeWriter } from './kube-writer.ts';

const pick = (names: readonly string[]) => names[Math.floor(Math.random() * names.length)]!;

export function serviceWorkload(writer: KubeWriter, others: readonly string[]): Workload {
  return {
    label: 'Services',
    sources: ['service'],
    async probe(k) {
      const ip = `10.250.${k >> 8}.${k & 255}`;
      await writer.setIp(PROBE, ip);
      return { host: `${PROBE}.${ZONE}`, ip };
    },
    churn: (i) => writer.setIp(pick(others), `10.200.${(i >> 8) & 255}.${i & 255}`),
  };
}

/** The Gateway of the probe route, alone with it, and its address now. */
export interface ProbeGateway {
  name: string;
  ip: string;
}

/** Route churn: another route gets a new hostname, through `rename` (HTTPRoute or IngressRoute). */
function hostChurn(rename: (name: string, host: string) => Promise<void>, others: readonly string[]) {
  return (i: number) => {
    const name = pick(others);
    return rename(name, `${name}-${i}.${ZONE}`);
  };
}
const routeChurn = (writer: KubeWriter, others: readonly string[]) => hostChurn(writer.setRouteHostname, others);
const ingressRouteChurn = (writer: KubeWriter, others: readonly string[]) =>
  hostChurn(writer.setIngressRouteHost, others);

export function routeWorkload(writer: KubeWriter, others: readonly string[], gateway: ProbeGateway): Workload {
  return {
    label: 'routes: a route gets a new hostname',
    sources: ['gateway-httproute'],
    async probe(k) {
      const host = `${PROBE}-${k}.${ZONE}`;
      await writer.setRouteHostname(PROBE, host);
      return { host, ip: gateway.ip };
    },
    churn: routeChurn(writer, others),
  };
}

/** The probe route's hostname is PROBE.ZONE while its Gateway's address changes (set it first). */
export function gatewayWorkload(writer: KubeWriter, others: readonly string[], gateway: ProbeGateway): Workload {
  return {
    label: "routes: the probe route's Gateway gets a new address",
    sources: ['gateway-httproute'],
    async probe(k) {
      gateway.ip = `10.251.${k >> 8}.${k & 255}`;
      await writer.setGatewayIp(gateway.name, gateway.ip);
      return { host: `${PROBE}.${ZONE}`, ip: gateway.ip };
    },
    churn: routeChurn(writer, others),
  };
}

/**
 * Traefik IngressRoutes (traefik-proxy): the probe route `probe` has a target annotation, the
 * route `probe-svc` none, so that it takes the load-balancer address of the Service `probe-lb`
 * (etcdns's --traefik-service, given in every run so that each run publishes the same names).
 */
export const TRAEFIK_PROBES = { route: PROBE, serviceRoute: `${PROBE}-svc`, service: `${PROBE}-lb` };
const traefik = {
  sources: ['traefik-proxy'],
  etcdnsArgs: ['--traefik-service', `default/${TRAEFIK_PROBES.service}`],
} as const;

/** The probe IngressRoute's Host matcher changes; `ip` is its target annotation. */
export function ingressRouteHostWorkload(writer: KubeWriter, others: readonly string[], ip: string): Workload {
  return {
    label: 'IngressRoutes: a route gets a new Host',
    ...traefik,
    async probe(k) {
      const host = `${TRAEFIK_PROBES.route}-${k}.${ZONE}`;
      await writer.setIngressRouteHost(TRAEFIK_PROBES.route, host);
      return { host, ip };
    },
    churn: ingressRouteChurn(writer, others),
  };
}

/** The probe IngressRoute's target annotation changes (its Host is PROBE.ZONE: set it first). */
export function ingressRouteTargetWorkload(writer: KubeWriter, others: readonly string[]): Workload {
  return {
    label: "IngressRoutes: a route's target annotation changes",
    ...traefik,
    async probe(k) {
      const ip = `10.252.${k >> 8}.${k & 255}`;
      await writer.setIngressRouteAnnotation(TRAEFIK_PROBES.route, 'external-dns.kubernetes.io/target', ip);
      return { host: `${TRAEFIK_PROBES.route}.${ZONE}`, ip };
    },
    churn: ingressRouteChurn(writer, others),
  };
}

/** probe-lb's load-balancer address changes: only probe-svc uses it (etcdns extension: external-dns has none). */
export function ingressRouteServiceWorkload(writer: KubeWriter, others: readonly string[]): Workload {
  return {
    label: "IngressRoutes: the Service a route takes its address from changes (etcdns's --traefik-service)",
    ...traefik,
    etcdnsOnly: true,
    async probe(k) {
      const ip = `10.253.${k >> 8}.${k & 255}`;
      await writer.setLoadBalancerIp(TRAEFIK_PROBES.service, ip);
      return { host: `${TRAEFIK_PROBES.serviceRoute}.${ZONE}`, ip };
    },
    churn: ingressRouteChurn(writer, others),
  };
}
