// external-dns's --unstructured-resource values ("virtualmachineinstances.v1.kubevirt.io",
// "configmaps.v1" for the core group): which collection the unstructured source reads.

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const GROUP = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * "resource.version.group" as external-dns reads it (client-go's ParseResourceArg, with a value of
 * one dot taken as the core group); the error says what the value should look like.
 */
export function parseUnstructuredResource(
  value: string,
):
  | { ok: true; api: { group: string; versions: string[]; resource: string; namespaced: boolean } }
  | { ok: false; error: string } {
  const parts = value.split('.');
  const [resource = '', version = ''] = parts;
  const group = parts.slice(2).join('.');
  const problem =
    parts.length < 2
      ? 'has no version'
      : !NAME.test(resource)
        ? `resource "${resource}" is not a lower-case resource name`
        : !NAME.test(version)
          ? `version "${version}" is not a version such as v1`
          : group !== '' && !GROUP.test(group)
            ? `group "${group}" is not an API group name`
            : undefined;
  if (problem)
    return {
      ok: false,
      error: `"${value}" ${problem}: expected resource.version.group (e.g. virtualmachineinstances.v1.kubevirt.io, configmaps.v1)`,
    };
  // Listed across namespaces (or in --namespace): the same URL serves namespaced and cluster-wide kinds.
  return { ok: true, api: { group, versions: [version], resource, namespaced: true } };
}
