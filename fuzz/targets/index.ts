// The fuzz targets by name, loaded on demand: the coverage V8 reports (and the loop's speed)
// grows with every module loaded, so a run loads only its target's.
import type { FuzzTarget } from '../engine.ts';

export const TARGETS: Record<string, () => Promise<FuzzTarget>> = {
  'dns-query': async () => (await import('./dns-query.fuzz.ts')).dnsQuery,
  'skydns-entry': async () => (await import('./skydns-entry.fuzz.ts')).skydnsEntry,
  annotations: async () => (await import('./annotations.fuzz.ts')).annotations,
  config: async () => (await import('./config.fuzz.ts')).config,
  'dns-endpoint': async () => (await import('./dns-endpoint.fuzz.ts')).dnsEndpoint,
};
