// Services for the controller benchmark: LoadBalancer Services with a hostname annotation, and
// their status.loadBalancer set the way a load-balancer controller sets it.
import type * as k8s from '@kubernetes/client-node';

const CONCURRENCY = 32;

export async function createServices(
  core: k8s.CoreV1Api,
  names: string[],
  zone: string,
  ipOf?: (i: number) => string,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < names.length; i = next++) {
      const name = names[i]!;
      await core.createNamespacedService({
        namespace: 'default',
        body: {
          metadata: {
            name,
            annotations: {
              // external-dns v0.22 reads only this prefix by default (the alpha one needs --annotation-prefix).
              'external-dns.kubernetes.io/hostname': `${name}.${zone}`,
            },
          },
          // No node ports: 10,000 Services would exhaust the node-port range.
          spec: { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 80, protocol: 'TCP' }] },
        },
      });
      if (ipOf) await setLoadBalancerIp(core, name, ipOf(i));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export async function setLoadBalancerIp(core: k8s.CoreV1Api, name: string, ip: string): Promise<void> {
  const svc = await core.readNamespacedService({ name, namespace: 'default' });
  svc.status = { loadBalancer: { ingress: [{ ip }] } };
  await core.replaceNamespacedServiceStatus({ name, namespace: 'default', body: svc });
}
