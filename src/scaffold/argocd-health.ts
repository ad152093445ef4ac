// Argo CD's health check for external-dns's DNSEndpoint, which Argo CD ships none for (a custom
// resource without one has no health, so an Application never waits for its records). etcdns's
// controller writes a Ready condition for the generation it published (dns-endpoint-status.ts):
// Healthy when True, Degraded when False (not owned, a conflict, filtered, invalid), Progressing
// until the controller has seen this generation. external-dns itself writes only
// status.observedGeneration: a DNSEndpoint it has seen counts as Healthy, so the check, which
// applies to every DNSEndpoint of the cluster, leaves theirs alone. Users add it to argocd-cm;
// `etcdns init` writes it as gitops/argocd/argocd-cm.yaml.

/** The argocd-cm key Argo CD reads a DNSEndpoint's health check from. */
export const DNS_ENDPOINT_HEALTH_KEY = 'resource.customizations.health.externaldns.k8s.io_DNSEndpoint';

export const DNS_ENDPOINT_HEALTH_LUA = `local hs = { status = "Progressing", message = "waiting for the DNS controller to publish this generation" }
local generation = obj.metadata.generation
if obj.status == nil then
  return hs
end
local ready = nil
if obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" then
      ready = c
    end
  end
end
if ready == nil then
  -- external-dns writes no condition, only the generation it has seen.
  if obj.status.observedGeneration ~= nil and obj.status.observedGeneration == generation then
    hs.status = "Healthy"
    hs.message = "observed"
  end
  return hs
end
if ready.observedGeneration ~= nil and ready.observedGeneration ~= generation then
  return hs
end
if ready.status == "True" then
  hs.status = "Healthy"
elseif ready.status == "False" then
  hs.status = "Degraded"
end
hs.message = (ready.reason or "") .. ": " .. (ready.message or "")
return hs
`;

/**
 * gitops/argocd/argocd-cm.yaml: the check as a ConfigMap that a merge patch adds to the argocd-cm
 * an Argo CD installation already has. Not an apply: on an argocd-cm installed by client-side
 * apply, server-side apply under a new field manager was seen to drop every other key, and a
 * client-side apply drops those its last-applied annotation lists.
 */
export function argoHealthConfigMap(): string {
  const lua = DNS_ENDPOINT_HEALTH_LUA.trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
  return `# Argo CD's health check for DNSEndpoints (Argo CD ships none): Healthy once etcdns published the
# records of the object's generation, Degraded when it refused them. Merge it into the argocd-cm of
# your Argo CD with a merge patch, which keeps the ConfigMap's other keys:
#   kubectl -n argocd patch configmap argocd-cm --type=merge --patch-file=gitops/argocd/argocd-cm.yaml
# Not kubectl apply (with or without --server-side): both can drop argocd-cm's other keys. Or put
# the key into the argocd-cm your Argo CD installation manages (Helm: configs.cm).
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
data:
  ${DNS_ENDPOINT_HEALTH_KEY}: |
${lua}
`;
}
