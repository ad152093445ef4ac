// Writes Services for the controller benchmark fast: raw HTTPS to the API server over kept-alive
// connections, one request per Service. A Service's address comes from the target annotation (as
// a user pins it; external-dns reads it too), so no status write is needed to give it a record;
// a change is a merge patch of that annotation. The many are ExternalName Services: the API
// server allocates them no cluster IP (allocating tens of thousands slowed creation to ~10 a
// second here); the one whose changes are timed is a LoadBalancer Service.
import https from 'node:https';
import type * as k8s from '@kubernetes/client-node';

const CONCURRENCY = 48;

export interface KubeWriter {
  /** Creates Services with a hostname in `zone` and the address `ipOf(i)`. */
  createServices(
    names: string[],
    zone: string,
    ipOf: (i: number) => string,
    type: 'LoadBalancer' | 'ExternalName',
  ): Promise<void>;
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
    async createServices(names, zone, ipOf, type) {
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
            spec:
              type === 'LoadBalancer'
                ? // No node ports: many Services would exhaust the node-port range.
                  { type, allocateLoadBalancerNodePorts: false, ports: [{ port: 80, protocol: 'TCP' }] }
                : { type, externalName: `backend.${zone}` },
          });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    },
    close: () => agent.destroy(),
  };
}
