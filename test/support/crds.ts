// CRDs into a real kube-apiserver: read from the files setup downloads (.cache/crds/) or the
// repository keeps (crds/), created, and waited for until each is served. The edges external-dns
// reads (Traefik, Istio, Contour, OpenShift) by name; the Gateway API's in gateway-api.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { waitFor } from './process.ts';
import { serverSideApply } from './server-side-apply.ts';
import { repoRoot } from './tools.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Versions as scripts/setup-test-env.sh downloads them. */
export const TRAEFIK_VERSION = 'v3.7.13';
export const ISTIO_API_VERSION = 'v1.30.3';
export const CONTOUR_VERSION = 'v1.33.6';
export const OPENSHIFT_API_VERSION = 'v0.0.0-20251015095338-264e80a2b6e7';
/** The External Secrets Operator whose ExternalSecret CRD setup copies to .cache/crds/. */
export const EXTERNAL_SECRETS_VERSION = 'v1.3.2';

const downloaded = (...path: string[]) => join(repoRoot, '.cache', 'crds', ...path);

/** The CustomResourceDefinitions of YAML files (other documents in them are left out). */
export function crdsIn(files: readonly string[]): Json[] {
  return files
    .flatMap((f) => loadAll(readFileSync(f, 'utf8')) as Json[])
    .filter((o) => o?.kind === 'CustomResourceDefinition');
}

/**
 * Creates the CRDs and waits until the API server serves each. `as-is` sends them untouched; the
 * default goes through the client's typed models, which drop the schema's `x-kubernetes-*` keys
 * (Istio's and OpenShift's CRDs are refused without their `x-kubernetes-int-or-string`; the Gateway API
 * CRDs lose their CEL rules, which some Gateways of the tests break: a UDP listener with a
 * hostname, a TLS listener without a mode).
 */
export async function installCrds(
  kc: k8s.KubeConfig,
  crds: readonly Json[],
  how: 'typed' | 'as-is' = 'typed',
): Promise<void> {
  const api = kc.makeApiClient(k8s.ApiextensionsV1Api);
  for (const crd of crds)
    if (how === 'as-is') await serverSideApply(kc, crd, { dryRun: false, fieldManager: 'etcdns-tests' });
    else await api.createCustomResourceDefinition({ body: crd as k8s.V1CustomResourceDefinition });
  for (const crd of crds)
    await waitFor(`CRD ${crd.metadata.name} established`, async () => {
      const status = (await api.readCustomResourceDefinition({ name: crd.metadata.name })).status;
      return status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });
}

const yamlFiles = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.yaml'))
    .map((f) => join(dir, f));

/** The CRDs of each edge, only the resources its external-dns source reads. */
const EDGES = {
  /** Traefik v3's traefik.io group. */
  traefik: () => crdsIn(yamlFiles(downloaded(`traefik-${TRAEFIK_VERSION}`), 'traefik.io_ingressroute')),
  /** Traefik v2's traefik.containo.us group (kept in test/support/crds/: no served module has it). */
  'traefik-legacy': () =>
    crdsIn(yamlFiles(join(repoRoot, 'test', 'support', 'crds', 'traefik-v2.11'), 'traefik.containo.us_ingressroute')),
  istio: () =>
    crdsIn([downloaded(`istio-${ISTIO_API_VERSION}`, 'customresourcedefinitions.gen.yaml')]).filter((c) =>
      ['gateways.networking.istio.io', 'virtualservices.networking.istio.io'].includes(c.metadata.name),
    ),
  contour: () =>
    crdsIn([downloaded(`contour-${CONTOUR_VERSION}`, '01-crds.yaml')]).filter(
      (c) => c.metadata.name === 'httpproxies.projectcontour.io',
    ),
  openshift: () => crdsIn([downloaded(`openshift-api-${OPENSHIFT_API_VERSION}`, 'routes.crd.yaml')]),
} satisfies Record<string, () => Json[]>;

export type Edge = keyof typeof EDGES;

/** Installs the CRDs external-dns's source of each edge reads, and waits until they are served. */
export async function installEdgeCrds(kc: k8s.KubeConfig, ...edges: Edge[]): Promise<void> {
  await installCrds(
    kc,
    edges.flatMap((e) => EDGES[e]()),
    'as-is',
  );
}

/** A Traefik route as its users write it (`traefik.io`, or Traefik v2's `traefik.containo.us` with `legacy`). */
export async function createTraefikRoute(
  kc: k8s.KubeConfig,
  r: {
    kind: 'IngressRoute' | 'IngressRouteTCP' | 'IngressRouteUDP';
    name: string;
    namespace: string;
    matches?: string[];
    annotations?: Record<string, string>;
    legacy?: boolean;
  },
): Promise<void> {
  const group = r.legacy ? 'traefik.containo.us' : 'traefik.io';
  const backend = { name: 'backend', port: 80 };
  const routes =
    r.kind === 'IngressRouteUDP'
      ? [{ services: [backend] }]
      : // Traefik v2's HTTP routes require kind: Rule (v3 defaults it).
        (r.matches ?? []).map((match) => ({
          match,
          services: [backend],
          ...(r.kind === 'IngressRoute' ? { kind: 'Rule' } : {}),
        }));
  await kc.makeApiClient(k8s.CustomObjectsApi).createNamespacedCustomObject({
    group,
    version: 'v1alpha1',
    namespace: r.namespace,
    plural: `${r.kind.toLowerCase()}s`,
    body: {
      apiVersion: `${group}/v1alpha1`,
      kind: r.kind,
      metadata: { name: r.name, annotations: r.annotations ?? {} },
      spec: { routes },
    },
  });
}
