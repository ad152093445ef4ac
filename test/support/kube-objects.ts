// Services and Ingresses as the tests create them, with the status a load-balancer or ingress
// controller (MetalLB, kube-vip, ingress-nginx) would report: no such controller runs here.
import * as k8s from '@kubernetes/client-node';

export type Address = k8s.V1LoadBalancerIngress;

const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);

/** A LoadBalancer Service on port 80 selecting app=<name> (or `selector`), then given `addresses` as its status. */
export async function createLoadBalancerService(
  kc: k8s.KubeConfig,
  o: {
    name: string;
    namespace?: string;
    annotations?: Record<string, string>;
    selector?: Record<string, string>;
    addresses: Address[];
  },
): Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const namespace = o.namespace ?? 'default';
  await core.createNamespacedService({
    namespace,
    body: {
      metadata: { name: o.name, annotations: o.annotations ?? {} },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }], selector: o.selector ?? { app: o.name } },
    },
  });
  await core.patchNamespacedServiceStatus(
    { name: o.name, namespace, body: { status: { loadBalancer: { ingress: o.addresses } } } },
    mergePatch,
  );
}

/** An Ingress with `spec`, then given `addresses` as its status. */
export async function createIngress(
  kc: k8s.KubeConfig,
  o: { name: string; namespace?: string; spec: k8s.V1IngressSpec; addresses: Address[] },
): Promise<void> {
  const networking = kc.makeApiClient(k8s.NetworkingV1Api);
  const namespace = o.namespace ?? 'default';
  await networking.createNamespacedIngress({ namespace, body: { metadata: { name: o.name }, spec: o.spec } });
  await networking.patchNamespacedIngressStatus(
    { name: o.name, namespace, body: { status: { loadBalancer: { ingress: o.addresses } } } },
    mergePatch,
  );
}

/**
 * Plays a load-balancer controller (MetalLB) for one Service until stopped: whenever it exists
 * without an address, it gets `address` as its status, 250 ms after at most. Returns stop().
 */
export function assignLoadBalancerAddress(
  kc: k8s.KubeConfig,
  o: { name: string; namespace: string; address: string },
): () => Promise<void> {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      try {
        const svc = await core.readNamespacedService({ name: o.name, namespace: o.namespace });
        if (svc.spec?.type === 'LoadBalancer' && !svc.status?.loadBalancer?.ingress?.length)
          await core.patchNamespacedServiceStatus(
            {
              name: o.name,
              namespace: o.namespace,
              body: { status: { loadBalancer: { ingress: [{ ip: o.address }] } } },
            },
            mergePatch,
          );
      } catch {
        // not there (yet, or any more)
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}
