// The parts of Istio's networking.istio.io objects the istio-gateway and istio-virtualservice
// sources read (v1, the version external-dns v0.22 lists; the API server converts older stored
// versions). @kubernetes/client-node has no types for them.
import type { ObjectMeta } from '../gateway/gateway-api.ts';

export const ISTIO_GROUP = 'networking.istio.io';

/** The sidecars of the mesh in a VirtualService's spec.gateways, not a Gateway. */
export const MESH_GATEWAY = 'mesh';

export interface IstioServer {
  /** "[namespace/]host": "*", "*.example.org", "apps/web.example.org", "./web.example.org". */
  hosts?: string[];
}

export interface IstioGateway {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    /** The labels of the gateway workloads; external-dns reads it against Services' selectors. */
    selector?: Record<string, string>;
    servers?: IstioServer[];
  };
}

export interface VirtualService {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    hosts?: string[];
    /** "[namespace/]name" of Gateways, or "mesh" (the sidecars). */
    gateways?: string[];
    /** Namespaces the VirtualService is visible to: "." (its own), "*" (all), or names. */
    exportTo?: string[];
  };
}
