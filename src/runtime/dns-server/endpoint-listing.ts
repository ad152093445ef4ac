// Whether a Service's EndpointSlices may still send clients to this pod: its address listed as a
// ready or a serving endpoint. A terminating pod's endpoint stays listed with ready false until
// the pod is gone, and with serving true until the kubelet's next readiness probe sees /readyz
// fail (up to periodSeconds after SIGTERM). kube-proxy sends no new flow to a pod that is not
// ready while another is, but it flushes a UDP flow it already sent there (conntrack) only once
// the endpoint stops serving: a client that reuses its source port follows the old flow until
// then (seen in the cluster check: a lookup sent to an old pod 6.7 s after its endpoint went
// unready, with the probe every 10 s). So the drain waits for both.
import type { V1EndpointSlice } from '@kubernetes/client-node';

/**
 * Whether any of `slices` lists `address` as ready or serving (no serving condition: as ready;
 * no ready condition: ready, as kube-proxy reads them).
 */
export function listsAsServing(slices: readonly V1EndpointSlice[], address: string): boolean {
  return slices.some((slice) =>
    slice.endpoints?.some(
      (e) =>
        e.addresses.includes(address) &&
        (e.conditions?.ready !== false || (e.conditions?.serving ?? e.conditions?.ready) !== false),
    ),
  );
}
