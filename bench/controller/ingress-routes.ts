// The Traefik IngressRoutes of the controller benchmark (traefik.io/v1alpha1, as Traefik v3's CRD
// takes them): one router whose rule is Host(`host`), pointing at a backend Service (the DNS
// sources read only the rule and the annotations). Pure.

export const TRAEFIK_API = '/apis/traefik.io/v1alpha1/namespaces/default/ingressroutes';

/** A route's rule for one host. */
export const hostRule = (host: string) => `Host(\`${host}\`)`;

/** An IngressRoute named `name` matching `host`, with `annotations`. */
export function ingressRoute(name: string, host: string, annotations: Record<string, string>) {
  return {
    apiVersion: 'traefik.io/v1alpha1',
    kind: 'IngressRoute',
    metadata: { name, annotations },
    spec: {
      entryPoints: ['web'],
      routes: [{ kind: 'Rule', match: hostRule(host), services: [{ name: 'backend', port: 80 }] }],
    },
  };
}

/** The merge patch that gives a route (made by ingressRoute) a new host. */
export const hostPatch = (host: string) => ({
  spec: { routes: [{ kind: 'Rule', match: hostRule(host), services: [{ name: 'backend', port: 80 }] }] },
});
