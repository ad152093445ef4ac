// SRV records per Service port (RFC 2782), opt-in: `_<port name>._<protocol>.<name>` -> the
// published name, at the port users reach (the node port for NodePort Services, else the Service
// port). Headless Services publish them only when their own annotation asks (every ready pod is a
// target, which could flood a corporate DNS), and every Service stops at a cap, reported.
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { canonicalName } from '../../../dns/dns-name.ts';
import type { RecordBuilder } from './record-builder.ts';
import type { SourceOptions } from './source-options.ts';

/** "true" asks for SRV records of this Service (needed for headless ones), "false" refuses them. */
export const SRV_ANNOTATION = 'etcdns.io/srv';

/** RFC 2782's service label is `_` + a name; Kubernetes port names are IANA_SVC_NAME, which fit. */
const PORT_NAME = /^[a-z0-9]([a-z0-9-]{0,13}[a-z0-9])?$/;

export interface SrvTarget {
  /** The published (forward) name SRV records are placed under. */
  name: string;
  /** The SRV target names: the name itself, or a headless Service's pod names below it. */
  targets: string[];
}

/** Whether this Service's SRV records are wanted: the annotation, else the configuration (not for headless). */
export function srvWanted(svc: V1Service, options: SourceOptions, headless: boolean): boolean {
  const asked = svc.metadata?.annotations?.[SRV_ANNOTATION];
  if (asked !== undefined) return asked === 'true';
  return options.srv && !headless;
}

export function serviceSrvRecords(
  svc: V1Service,
  b: RecordBuilder,
  published: SrvTarget[],
  slices: readonly V1EndpointSlice[],
  options: SourceOptions,
): void {
  const nodePort = svc.spec?.type === 'NodePort';
  const headless = svc.spec?.clusterIP === 'None';
  let count = 0;
  let capped = false;
  for (const port of svc.spec?.ports ?? []) {
    if (!port.name) {
      b.problem(
        'InvalidAnnotation',
        `SRV records: port ${port.port} has no name, and an SRV record needs one (_<port name>._<protocol>); it gets none`,
      );
      continue;
    }
    if (!PORT_NAME.test(port.name)) continue;
    // Headless: the pods' own port (the EndpointSlice's port of that name), as clients reach pods directly.
    const reached = nodePort
      ? port.nodePort
      : headless
        ? (slices.flatMap((s) => s.ports ?? []).find((p) => p.name === port.name)?.port ?? port.port)
        : port.port;
    if (!reached) continue;
    const proto = (port.protocol ?? 'TCP').toLowerCase();
    for (const { name, targets } of published) {
      const srvName = canonicalName(`_${port.name}._${proto}.${name}`);
      for (const target of targets) {
        if (count >= options.srvMaxPerService) {
          capped = true;
          break;
        }
        b.srv(srvName, target, reached);
        count++;
      }
    }
  }
  if (capped) {
    b.problem(
      'TooManyRecords',
      `SRV records stop at ${options.srvMaxPerService} per Service (srvMaxPerService); the others are left out`,
    );
  }
}
