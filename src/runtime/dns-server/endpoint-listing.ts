// Whether a Service's EndpointSlices still send clients to this pod: its address listed as a
// ready endpoint. A terminating pod's endpoint stays listed with ready false (and terminating
// true) until the pod is gone; kube-proxy sends it nothing new then while another endpoint is
// ready, so "not ready" counts as left.
import type { V1EndpointSlice } from '@kubernetes/client-node';

/** Whether any of `slices` lists `address` as a ready endpoint (no ready condition: ready, as kube-proxy reads it). */
export function listsAsReady(slices: readonly V1EndpointSlice[], address: string): boolean {
  return slices.some((slice) =>
    slice.endpoints?.some((e) => e.addresses.includes(address) && e.conditions?.ready !== false),
  );
}
