// Writes Services, Gateways, HTTPRoutes and Traefik IngressRoutes for the controller benchmark fast: raw HTTPS to the API
// server over kept-alive connections. A Service's address comes from the target annotation (as
// a user pins it; external-dns reads it too), so no status write is needed to give it a record;
// a change is a merge patch of that annotation. The many are ExternalName Services: the API
// server allocates them no cluster IP (allocating tens of thousands slowed creation to ~10 a
// second here); the one whose changes are timed is a LoadBalancer Service. A route is created,
// then accepted through its /status as a Gateway controller would; a Gateway's address is its
// status too.
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';
import { hostPatch, ingressRoute, TRAEFIK_API } from './ingress-routes.ts';

const CONCURRENCY = 48;

export interface KubeWriter {
  /** Creates Services with a hostname in `zone` and the address `ipOf(i)` (in `namespace`, default "default"). */
  createServices(
    names: string[],
    zone: string,
    ipOf: (i: number) => string,
    type: 'LoadBalancer' | 'ExternalName',
    namespace?: string,
  ): Promise<void>;
  createNamespace(name: string): Promise<void>;
  /** Changes a Service's address (its target annotation). */
  setIp(name: string, ip: string): Promise<void>;
  /** A Gateway with one HTTP listener for every name under `zone`, at `ip`. */
  createGateway(name: string, zone: string, ip: string): Promise<void>;
  setGatewayIp(name: string, ip: string): Promise<void>;
  /** HTTPRoutes, route i with the hostname `hostOf(i)`, attached to `gatewayOf(i)` and accepted. */
  createRoutes(names: string[], hostOf: (i: number) => string, gatewayOf: (i: number) => string): Promise<void>;
  setRouteHostname(name: string, hostname: string): Promise<void>;
  /** Sets a Service's status.loadBalancer to `ip`, as a load-balancer controller does. */
  setLoadBalancerIp(name: string, ip: string): Promise<void>;
  /** Traefik IngressRoutes, route i matching `hostOf(i)` with `annotationsOf(i)`. */
  createIngressRoutes(
    names: string[],
    hostOf: (i: number) => string,
    annotationsOf: (i: number) => Record<string, string>,
  ): Promise<void>;
  setIngressRouteHost(name: string, host: string): Promise<void>;
  setIngressRouteAnnotation(name: string, key: string, value: string): Promise<void>;
  close(): void;
}

const GATEWAY_API = '/apis/gateway.networking.k8s.io/v1/namespaces/default';
const ACCEPTED = [
  {
    type: 'Accepted',
    status: 'True',
    reason: 'Accepted',
    message: 'bench',
    lastTransitionTime: new Date(0).toISOString(),
  },
];

export function kubeWriter(kc: k8s.KubeConfig): KubeWriter {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const server = new URL(kc.getCurrentCluster()!.server);
  const send = async (method: string, path: string, contentType: string, body: unknown) => {
    const options: https.RequestOptions = {
      method,
      agent,
      hostname: server.hostname,
      port: server.port,
      path,
      headers: { 'Content-Type': contentType, Accept: 'application/json' },
    };
    await kc.applyToHTTPSOptions(options);
    options.agent = agent;
    await new Promise<void>((resolve, reject) => {
      const req = https.request(options, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          res.statusCode! < 300 ? resolve() : reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)),
        );
      });
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });
  };
  const servicesIn = (namespace: string) => `/api/v1/namespaces/${namespace}/services`;
  const base = servicesIn('default');
  const merge = (path: string, body: unknown) => send('PATCH', path, 'application/merge-patch+json', body);
  /** Runs `one` for each index, CONCURRENCY at a time. */
  const inParallel = async (count: number, one: (i: number) => Promise<void>) => {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < count; i = next++) await one(i);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  };
  const TARGET = 'external-dns.kubernetes.io/target';
  const setIp = (name: string, ip: string) => merge(`${base}/${name}`, { metadata: { annotations: { [TARGET]: ip } } });
  const gatewayStatus = (name: string, ip: string) =>
    merge(`${GATEWAY_API}/gateways/${name}/status`, { status: { addresses: [{ type: 'IPAddress', value: ip }] } });
  return {
    setIp,
    async createGateway(name, zone, ip) {
      await send('POST', `${GATEWAY_API}/gateways`, 'application/json', {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name },
        spec: {
          gatewayClassName: 'bench',
          listeners: [{ name: 'http', protocol: 'HTTP', port: 80, hostname: `*.${zone}` }],
        },
      });
      await gatewayStatus(name, ip);
    },
    setGatewayIp: gatewayStatus,
    async createRoutes(names, hostOf, gatewayOf) {
      await inParallel(names.length, async (i) => {
        const parentRefs = [{ name: gatewayOf(i) }];
        await send('POST', `${GATEWAY_API}/httproutes`, 'application/json', {
          apiVersion: 'gateway.networking.k8s.io/v1',
          kind: 'HTTPRoute',
          metadata: { name: names[i]! },
          spec: { parentRefs, hostnames: [hostOf(i)] },
        });
        await merge(`${GATEWAY_API}/httproutes/${names[i]!}/status`, {
          status: {
            parents: [{ parentRef: parentRefs[0], controllerName: 'example.org/bench', conditions: ACCEPTED }],
          },
        });
      });
    },
    setRouteHostname: (name, hostname) =>
      merge(`${GATEWAY_API}/httproutes/${name}`, { spec: { hostnames: [hostname] } }),
    setLoadBalancerIp: (name, ip) =>
      merge(`${base}/${name}/status`, { status: { loadBalancer: { ingress: [{ ip }] } } }),
    async createIngressRoutes(names, hostOf, annotationsOf) {
      await inParallel(names.length, (i) =>
        send('POST', TRAEFIK_API, 'application/json', ingressRoute(names[i]!, hostOf(i), annotationsOf(i))),
      );
    },
    setIngressRouteHost: (name, host) => merge(`${TRAEFIK_API}/${name}`, hostPatch(host)),
    setIngressRouteAnnotation: (name, key, value) =>
      merge(`${TRAEFIK_API}/${name}`, { metadata: { annotations: { [key]: value } } }),
    createNamespace: (name) =>
      send('POST', '/api/v1/namespaces', 'application/json', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name },
      }),
    async createServices(names, zone, ipOf, type, namespace = 'default') {
      await inParallel(names.length, async (i) => {
        const name = names[i]!;
        await send('POST', servicesIn(namespace), 'application/json', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name,
            annotations: { 'external-dns.kubernetes.io/hostname': `${name}.${zone}`, [TARGET]: ipOf(i) },
          },
          spec:
            type === 'LoadBalancer'
              ? // No node ports: many Services would exhaust the node-port range.
                { type, allocateLoadBalancerNodePorts: false, ports: [{ port: 80, protocol: 'TCP' }] }
              : { type, externalName: `backend.${zone}` },
        });
      });
    },
    close: () => agent.destroy(),
  };
}
