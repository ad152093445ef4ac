// Which kind each --unstructured-resource lists, asked of the API server's discovery at start-up
// (external-dns checks the same there): the kind names the objects (.Kind in templates, Events)
// and their resource ids ("configmap/<ns>/<name>", external-dns's: the kind lower-cased).
import { ConfigError } from '../../../../config/config-error.ts';
import type { ApiResource } from '../../../../config/source-kinds.ts';
import type { KubeClient } from '../../../kube/kube-client.ts';
import { parseUnstructuredResource } from '../../../../config/unstructured-resource.ts';

export interface UnstructuredResource {
  /** The flag's value, for messages. */
  value: string;
  kind: string;
  api: ApiResource;
}

interface ApiResourceList {
  resources?: { name: string; kind: string; namespaced: boolean }[];
}

/** Each value resolved; a value the API server does not serve fails start-up naming it. */
export async function discoverUnstructured(
  client: Pick<KubeClient, 'request'>,
  values: readonly string[],
): Promise<UnstructuredResource[]> {
  const lists = new Map<string, Promise<ApiResourceList>>();
  const problems: string[] = [];
  const found: UnstructuredResource[] = [];
  for (const value of values) {
    const parsed = parseUnstructuredResource(value);
    if (!parsed.ok) {
      problems.push(`--unstructured-resource ${parsed.error}`);
      continue;
    }
    const { group, versions, resource } = parsed.api;
    const path = group ? `/apis/${group}/${versions[0]}` : `/api/${versions[0]}`;
    if (!lists.has(path)) lists.set(path, client.request<ApiResourceList>('GET', path));
    try {
      const list = await lists.get(path)!;
      const served = list.resources?.find((r) => r.name === resource);
      if (!served) problems.push(`--unstructured-resource ${value}: ${path} serves no "${resource}"`);
      else found.push({ value, kind: served.kind, api: { ...parsed.api, namespaced: served.namespaced } });
    } catch (e) {
      problems.push(`--unstructured-resource ${value}: ${path} is not served (${(e as Error).message})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return found;
}
