// Writes Services for the controller benchmark fast: raw HTTPS to the API server over kept-alive
// connections, one request per Service. Each is a LoadBalancer Service whose address comes from
// the target annotation (as a user pins it; external-dns reads it too), so no status write is
// needed to give it a record; a change is a merge patch of that annotation.
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';

const CONCURRENCY = 48;

export interface KubeWriter {
  /** Creates LoadBalancer Services with a hostname in `zone` and the address `ipOf(i)`. */
  createServices(names: string[], zone: string, ipOf: (i: number) => string): Promise<void>;
  /** Changes a Service's address (its target annotation). */
  setIp(name: string, ip: string): Promise<void>;
  close(): void;
}

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
  const base = '/api/v1/namespaces/default/services';
  const TARGET = 'external-dns.kubernetes.io/target';
  const setIp = (name: string, ip: string) =>
    send('PATCH', `${base}/${name}`, 'application/merge-patch+json', { metadata: { annotations: { [TARGET]: ip } } });
  return {
    setIp,
    async createServices(names, zone, ipOf) {
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < names.length; i = next++) {
          const name = names[i]!;
          await send('POST', base, 'application/json', {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: {
              name,
              annotations: { 'external-dns.kubernetes.io/hostname': `${name}.${zone}`, [TARGET]: ipOf(i) },
            },
            // No node ports: 50,000 Services would exhaust the node-port range.
            spec: {
              type: 'LoadBalancer',
              allocateLoadBalancerNodePorts: false,
              ports: [{ port: 80, protocol: 'TCP' }],
            },
          });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    },
    close: () => agent.destroy(),
  };
}
