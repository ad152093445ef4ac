// "[namespace/]name": how an Istio Gateway's ingress annotation names its Ingress and a
// VirtualService's spec.gateways names its Gateways. As external-dns reads it, a missing
// namespace is the referring object's; anything with more than one "/" is malformed (external-dns
// exits on it; we report the object and skip it).

export type ObjectReference = { ok: true; namespace: string; name: string } | { ok: false; error: string };

export function parseObjectReference(value: string, defaultNamespace: string): ObjectReference {
  const parts = value.split('/');
  if (parts.length > 2) return { ok: false, error: `"${value}" is neither "name" nor "namespace/name"` };
  const [namespace, name] = parts.length === 2 ? [parts[0]!, parts[1]!] : ['', parts[0]!];
  return { ok: true, namespace: namespace || defaultNamespace, name };
}
