// What the churn runs change (churn.ts): Services, whose probe gets a new address; HTTPRoutes,
// whose probe gets a new hostname (the old name goes, the new one comes); and the probe route's
// Gateway, whose new address its route's name must follow while 10,000 other routes hang off
// another Gateway (a Gateway change re-plans only the routes attached to it). The other objects
// change at the churn rate: Services their address, routes their hostname.
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

/** Route churn: another route gets a new hostname. */
function routeChurn(writer: KubeWriter, others: readonly string[]) {
  return (i: number) => {
    const name = pick(others);
    return writer.setRouteHostname(name, `${name}-${i}.${ZONE}`);
  };
}

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
