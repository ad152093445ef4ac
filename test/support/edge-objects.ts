// Contour HTTPProxies, OpenShift Routes, Nodes and Pods as the tests create them, with the status
// their controllers would report through /status (Contour copies Envoy's load-balancer address,
// an OpenShift router admits the route, the kubelet reports a node's addresses and a pod's IP):
// none of those controllers runs here. Their CRDs: crds.ts (installEdgeCrds(kc, 'contour', 'openshift')).
import * as k8s from '@kubernetes/client-node';
import { setStatus } from './gateway-api.ts';

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

const HTTPPROXY = { group: 'projectcontour.io', version: 'v1', plural: 'httpproxies' };
const ROUTE = { group: 'route.openshift.io', version: 'v1', plural: 'routes' };

/** An HTTPProxy routing `fqdn` nowhere, then given `addresses` (IPs or hostnames) as its status. */
export async function createHttpProxy(
  kc: k8s.KubeConfig,
  o: { name: string; namespace: string; fqdn?: string; addresses: string[]; annotations?: Record<string, string> },
): Promise<void> {
  const coordinates = { ...HTTPPROXY, namespace: o.namespace };
  await kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    ...coordinates,
    body: {
      apiVersion: 'projectcontour.io/v1',
      kind: 'HTTPProxy',
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: o.fqdn ? { virtualhost: { fqdn: o.fqdn }, routes: [] } : { routes: [] },
    },
  });
  await setStatus(kc, coordinates, o.name, {
    currentStatus: 'valid',
    description: 'Valid HTTPProxy',
    loadBalancer: {
      ingress: o.addresses.map((a) => (/[a-z]/i.test(a) && !a.includes(':') ? { hostname: a } : { ip: a })),
    },
  });
}

export interface RouterAdmission {
  routerName: string;
  canonicalHostname: string;
  /** Default true. */
  admitted?: boolean;
}

/** A Route for `host` to a Service, then given each router's admission in status.ingress[]. */
export async function createOpenShiftRoute(
  kc: k8s.KubeConfig,
  o: {
    name: string;
    namespace: string;
    host: string;
    routers: RouterAdmission[];
    annotations?: Record<string, string>;
  },
): Promise<void> {
  const coordinates = { ...ROUTE, namespace: o.namespace };
  await kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    ...coordinates,
    body: {
      apiVersion: 'route.openshift.io/v1',
      kind: 'Route',
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: { host: o.host, to: { kind: 'Service', name: 'backend', weight: 100 } },
    },
  });
  await setStatus(kc, coordinates, o.name, {
    ingress: o.routers.map((r) => ({
      host: o.host,
      routerName: r.routerName,
      routerCanonicalHostname: r.canonicalHostname,
      wildcardPolicy: 'None',
      conditions: [
        {
          type: 'Admitted',
          status: r.admitted === false ? 'False' : 'True',
          lastTransitionTime: new Date(0).toISOString(),
        },
      ],
    })),
  });
}

/** A Node, then given `addresses` ([type, address]) as the kubelet reports them. */
export async function createNode(
  kc: k8s.KubeConfig,
  o: {
    name: string;
    addresses: [type: string, address: string][];
    unschedulable?: boolean;
    annotations?: Record<string, string>;
  },
): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNode({
    body: {
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: { unschedulable: o.unschedulable ?? false },
    },
  });
  await core.patchNodeStatus(
    { name: o.name, body: { status: { addresses: o.addresses.map(([type, address]) => ({ type, address })) } } },
    mergePatch,
  );
}

/**
 * A Pod bound to `nodeName`, then given `ip` as its status (Running), or left Pending without an
 * IP. Its namespace needs a "default" ServiceAccount (no controller-manager makes one here).
 */
export async function createPod(
  kc: k8s.KubeConfig,
  o: {
    name: string;
    namespace: string;
    nodeName: string;
    hostNetwork?: boolean;
    ip?: string;
    annotations?: Record<string, string>;
  },
): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  await core.createNamespacedPod({
    namespace: o.namespace,
    body: {
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: {
        nodeName: o.nodeName,
        hostNetwork: o.hostNetwork ?? false,
        automountServiceAccountToken: false,
        containers: [{ name: 'main', image: 'registry.invalid/none:1' }],
      },
    },
  });
  if (!o.ip) return;
  await core.patchNamespacedPodStatus(
    {
      name: o.name,
      namespace: o.namespace,
      body: { status: { phase: 'Running', podIP: o.ip, podIPs: [{ ip: o.ip }] } },
    },
    mergePatch,
  );
}
