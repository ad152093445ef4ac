// Server-side apply of plain JSON (what synth produces), sent and answered as it is. The client
// library's KubernetesObjectApi passes a plain object through its typed models, which know a
// NetworkPolicy rule's `from` only as `_from`: a plain object's `from` is silently not sent, and
// the dry run would accept a policy that admits everyone.
import https from 'node:https';
import * as k8s from '@kubernetes/client-node';

// The synthesized JSON, loosely typed.
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** KubernetesObjectApi's discovery (plural name, namespaced) opened up. */
class Discovery extends k8s.KubernetesObjectApi {
  async find(apiVersion: string, kind: string): Promise<{ name: string; namespaced: boolean } | undefined> {
    return this.resource(apiVersion, kind);
  }
}

export async function serverSideApply(
  kc: k8s.KubeConfig,
  object: Json,
  options: { dryRun: boolean; fieldManager: string },
): Promise<Json> {
  const resource = await kc.makeApiClient(Discovery).find(object.apiVersion, object.kind);
  if (!resource) throw new Error(`${object.apiVersion} ${object.kind}: not served`);
  const group = object.apiVersion.includes('/') ? `/apis/${object.apiVersion}` : `/api/${object.apiVersion}`;
  const namespace = resource.namespaced ? `/namespaces/${object.metadata.namespace}` : '';
  const url = new URL(`${group}${namespace}/${resource.name}/${object.metadata.name}`, kc.getCurrentCluster()!.server);
  url.searchParams.set('fieldManager', options.fieldManager);
  url.searchParams.set('force', 'true');
  if (options.dryRun) url.searchParams.set('dryRun', 'All');
  const request: https.RequestOptions = {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json' },
  };
  await kc.applyToHTTPSOptions(request);
  return new Promise((resolve, reject) => {
    const req = https.request(url, request, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () =>
        res.statusCode === 200 || res.statusCode === 201
          ? resolve(JSON.parse(body) as Json)
          : reject(new Error(`apply of ${object.kind}/${object.metadata.name}: ${res.statusCode} ${body}`)),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(object));
  });
}

/** Paths where `received` lacks or changed what `sent` set: fields the API server dropped or rewrote. */
export function notKept(sent: unknown, received: unknown, path = ''): string[] {
  if (sent !== null && typeof sent === 'object') {
    if (received === null || typeof received !== 'object') return [`${path}: missing`];
    return Object.entries(sent).flatMap(([k, v]) =>
      notKept(v, (received as Record<string, unknown>)[k], `${path}/${k}`),
    );
  }
  return sent === received ? [] : [`${path}: sent ${JSON.stringify(sent)}, stored ${JSON.stringify(received)}`];
}
