// DnssecSigner: Knot DNS as the signing secondary of one view's etcdns server (knot-signer-config.ts).
// One pod of a StatefulSet (two signers would each make their own keys), its keys and signed
// zones on a PersistentVolume (Knot's KASP database and journal: a restart keeps the keys, and
// the DS at the parent stays right), a ConfigMap with Knot's configuration, and the Service the
// outside's resolvers and secondaries ask.
//
// Knot takes only addresses for its primary. An init container resolves the view's DNS Service
// name (namespace-relative, so an overlay's namespace works) and writes Knot's `remote` into a
// file the configuration includes; the Service's ClusterIP stays for the Service's lifetime. etcdns
// NOTIFYs addresses only and the signer's address is not known at synth time, so Knot instead
// asks etcdns for the SOA every `refreshInterval` (default 5 s): a change is signed within that.
import type { Construct } from 'constructs';
import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-27';
import * as v from 'valibot';
import { network, upstream } from '../../config/field-rules.ts';
import { canonicalName } from '../../dns/dns-name.ts';
import {
  DNS_PORT,
  DNS_PORT_NAMES,
  DnsService,
  dnsServiceProblems,
  type DnsServiceProps,
} from '../server/dns-service.ts';
import { dataClaimTemplate, statefulSetSpecJson } from '../base/data-claim.ts';
import { DEFAULT_IMAGES, imageReference } from '../base/image.ts';
import { COMPONENT, podTemplateLabels, selectorLabels } from '../base/labels.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';
import { configHash, CONFIG_HASH_ANNOTATION } from '../base/config-file.ts';
import { SECRET_KEY, k8sName, settingProblems, show } from '../base/kubernetes-rules.ts';
import type { TransferProps, ZoneProps } from '../server/zone-transfer.ts';
import {
  RESTRICTED_CONTAINER,
  imagePullPolicy,
  podSecurityContext,
  resourceRequirements,
  scheduling,
  sizeProblems,
  tmpVolume,
  TMP_MOUNT,
  type TmpVolumeProps,
  type WorkloadProps,
  workloadProblems,
} from '../base/workload.ts';
import {
  knotSignerConfig,
  refreshIntervalProblems,
  signerPolicyProblems,
  type SignerPolicy,
} from './knot-signer-config.ts';

export interface SignerTsigProps {
  /** An existing Secret in the stack's namespace holding the key in Knot's and in BIND's format. */
  readonly secretName: string;
  /** The key's name: its `id` in the Knot file, its name in the BIND file. */
  readonly keyName: string;
  /**
   * The Secret's key holding Knot's `key:` section (`keymgr -t <keyName> hmac-sha256` prints one).
   * @default "knot.key"
   */
  readonly knotKey?: string;
  /**
   * The Secret's key holding the same key as a BIND key file, for etcdns's transfers: used when
   * the view's transfer has no `keySecret` of its own (that one must then hold this key).
   * @default "tsig.key"
   */
  readonly bindKey?: string;
}

export interface SignerStorageProps {
  /**
   * Size of the volume holding the keys and the signed zones.
   * @default "1Gi"
   */
  readonly size?: string;
  /**
   * StorageClass of the volume.
   * @default - the cluster's default
   */
  readonly storageClassName?: string;
}

export interface SignerSecondariesProps {
  /**
   * The outside's secondaries allowed to transfer the signed zones, as addresses or CIDRs.
   * @default - none
   */
  readonly allowCidrs?: string[];
  /**
   * Secondaries sent a NOTIFY when a signed zone changes, "ip" or "ip:port" (53 when absent).
   * @default - none
   */
  readonly notify?: string[];
}

/**
 * DNSSEC by Knot DNS: a signer in front of one view's etcdns server (docs/dnssec.md). etcdns stays
 * unsigned; Knot takes the zones by IXFR, signs them with its own keys (KASP: it rolls the ZSKs
 * itself, publishes CDS/CDNSKEY) and is the server the outside asks for them.
 */
export interface DnssecProps extends Omit<WorkloadProps, 'image'>, TmpVolumeProps {
  /**
   * The view whose zones are signed (usually the external one).
   * @default - the only view; required with more than one
   */
  readonly view?: string;
  /**
   * The zones to sign, each one the view answers.
   * @default - every zone of the view
   */
  readonly zones?: string[];
  /**
   * The networks the signer pod's address comes from (the cluster's pod CIDRs): the view's server
   * allows them zone transfers. With `tsig` the key decides too.
   */
  readonly podCidrs: string[];
  /**
   * How the zones are signed: algorithm, key lifetimes, NSEC3.
   * @default - see SignerPolicy (ECDSA P-256, ZSK 30 days, KSK by hand, NSEC3)
   */
  readonly policy?: SignerPolicy;
  /**
   * How often at most Knot asks etcdns for the zones' SOA (Knot's `refresh-max-interval`, 2 s at
   * the least): a change in Kubernetes is signed within about this long.
   * @default "5s"
   */
  readonly refreshInterval?: string;
  /**
   * TSIG for the transfers from etcdns to Knot.
   * @default - none: `podCidrs` alone decide
   */
  readonly tsig?: SignerTsigProps;
  /**
   * The outside's secondaries of the signed zones.
   * @default - none
   */
  readonly secondaries?: SignerSecondariesProps;
  /**
   * The volume of the keys and the signed zones.
   * @default - see SignerStorageProps (1Gi)
   */
  readonly storage?: SignerStorageProps;
  /**
   * The Service the outside asks for the signed zones (port 53, UDP and TCP).
   * @default - a mixed-protocol LoadBalancer, as the DNS servers'
   */
  readonly service?: DnsServiceProps;
  /**
   * The Knot image: knotd, keymgr, a shell and getent (the init step resolves the Service name).
   * @default - DEFAULT_IMAGES.knot
   */
  readonly image?: WorkloadProps['image'];
}

export interface DnssecSignerProps extends DnssecProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** The zones signed (names as the stack gives them). */
  readonly signedZones: string[];
  /** The view's DNS Service Knot transfers from (the TCP one when split). */
  readonly primaryService: string;
}

export const SIGNER_DEFAULTS = {
  refreshInterval: '5s',
  storageSize: '1Gi',
  knotKey: 'knot.key',
  bindKey: 'tsig.key',
  dnsPort: 5353,
  resources: {
    requests: { cpu: '50m', memory: '64Mi', ephemeralStorage: '64Mi' },
    limits: { memory: '512Mi', ephemeralStorage: '256Mi' },
  },
} as const;

/** Where the pod keeps what: Knot's config (ConfigMap), the run directory, the data volume, the key. */
const PATHS = {
  config: '/etc/knot',
  run: '/run/knot',
  data: '/var/lib/knot',
  tsig: '/etc/knot/tsig',
} as const;
const PRIMARY_FILE = `${PATHS.run}/primary.conf`;

/**
 * The init step: the primary Service's address into Knot's `remote` (dash and getent only). No
 * address yet (the Service not made yet): it fails, and the kubelet starts it again.
 */
const RESOLVE_PRIMARY = [
  'set -eu',
  'set -- $(getent hosts "$PRIMARY_SERVICE" || true)',
  '[ -n "${1:-}" ] || { echo "no address for $PRIMARY_SERVICE yet" >&2; exit 1; }',
  `printf 'remote:\\n  - id: etcdns\\n    address: %s@%s\\n' "$1" "$PRIMARY_PORT" > ${PRIMARY_FILE}`,
  `[ -z "$TSIG_KEY" ] || printf '    key: %s\\n' "$TSIG_KEY" >> ${PRIMARY_FILE}`,
  `echo "primary $PRIMARY_SERVICE: $1"`,
].join('\n');

/** An etcdns "ip" or "ip:port" as Knot's "ip@port". */
const knotAddress = (address: string) => {
  const { host, port } = v.parse(upstream, address);
  return `${host}@${port}`;
};

export class DnssecSigner extends StackPart {
  /** The Services the outside asks. */
  readonly serviceNames: string[];
  /** Knot's configuration as rendered into the ConfigMap. */
  readonly knotConfig: string;

  constructor(scope: Construct, id: string, props: DnssecSignerProps) {
    const { stack } = props;
    const component = COMPONENT.signer;
    const image = props.image ?? DEFAULT_IMAGES.knot;
    super(scope, id, stack, { component, version: image.tag, wave: SYNC_WAVE.workloads, labels: props.labels });
    const name = `${stack.name}-dnssec-signer`;
    const selector = selectorLabels(stack.name, component);
    const tsig = props.tsig;
    const knotKey = tsig ? (tsig.knotKey ?? SIGNER_DEFAULTS.knotKey) : undefined;
    this.knotConfig = knotSignerConfig({
      zones: props.signedZones.map(canonicalName),
      listen: `0.0.0.0@${SIGNER_DEFAULTS.dnsPort}`,
      storage: PATHS.data,
      rundir: PATHS.run,
      primary: { file: PRIMARY_FILE },
      ...(tsig ? { tsig: { id: tsig.keyName, file: `${PATHS.tsig}/${knotKey}` } } : {}),
      ...(props.policy ? { policy: props.policy } : {}),
      refreshInterval: props.refreshInterval ?? SIGNER_DEFAULTS.refreshInterval,
      ...(props.secondaries?.allowCidrs?.length ? { transferAllow: props.secondaries.allowCidrs } : {}),
      ...(props.secondaries?.notify?.length ? { notify: props.secondaries.notify.map(knotAddress) } : {}),
    });
    new k8s.KubeConfigMap(this, 'config', { metadata: this.meta(name), data: { 'knot.conf': this.knotConfig } });

    const container = {
      image: imageReference(image),
      imagePullPolicy: imagePullPolicy(props),
      resources: resourceRequirements(props, SIGNER_DEFAULTS.resources),
      securityContext: RESTRICTED_CONTAINER,
    };
    const runMount = { name: 'run', mountPath: PATHS.run };
    const tcpProbe = (failureThreshold: number): k8s.Probe => ({
      tcpSocket: { port: k8s.IntOrString.fromString(DNS_PORT_NAMES.tcp) },
      periodSeconds: 10,
      timeoutSeconds: 2,
      failureThreshold,
    });
    const spec: k8s.StatefulSetSpec = {
      // One signer: each would make keys of its own.
      replicas: 1,
      serviceName: name,
      revisionHistoryLimit: 5,
      selector: { matchLabels: selector },
      template: {
        metadata: {
          labels: podTemplateLabels(this.meta(name).labels),
          annotations: { ...props.podAnnotations, [CONFIG_HASH_ANNOTATION]: configHash(this.knotConfig) },
        },
        spec: {
          ...scheduling(props),
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext(props),
          initContainers: [
            {
              name: 'resolve-primary',
              ...container,
              command: ['/bin/sh', '-c', RESOLVE_PRIMARY],
              env: [
                { name: 'PRIMARY_PORT', value: String(DNS_PORT) },
                { name: 'PRIMARY_SERVICE', value: props.primaryService },
                { name: 'TSIG_KEY', value: tsig?.keyName ?? '' },
              ],
              volumeMounts: [runMount],
            },
          ],
          containers: [
            {
              name: 'knot',
              ...container,
              command: ['/usr/sbin/knotd', '-c', `${PATHS.config}/knot.conf`],
              ports: [
                { name: DNS_PORT_NAMES.tcp, containerPort: SIGNER_DEFAULTS.dnsPort, protocol: 'TCP' },
                { name: DNS_PORT_NAMES.udp, containerPort: SIGNER_DEFAULTS.dnsPort, protocol: 'UDP' },
              ],
              livenessProbe: tcpProbe(3),
              readinessProbe: tcpProbe(1),
              volumeMounts: [
                { name: 'config', mountPath: `${PATHS.config}/knot.conf`, subPath: 'knot.conf', readOnly: true },
                { name: 'data', mountPath: PATHS.data },
                runMount,
                // knotd makes its configuration database in a temporary directory.
                TMP_MOUNT,
                ...(tsig ? [{ name: 'tsig', mountPath: PATHS.tsig, readOnly: true }] : []),
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name } },
            { name: 'run', emptyDir: { sizeLimit: k8s.Quantity.fromString('16Mi') } },
            tmpVolume(props),
            ...(tsig
              ? [
                  {
                    name: 'tsig',
                    secret: {
                      secretName: tsig.secretName,
                      items: [{ key: knotKey!, path: knotKey! }],
                      defaultMode: 0o440,
                    },
                  },
                ]
              : []),
          ],
        },
      },
      volumeClaimTemplates: [dataClaimTemplate(selector, props.storage, SIGNER_DEFAULTS.storageSize)],
    };
    const specJson = statefulSetSpecJson(spec);
    new ApiObject(this, 'statefulset', {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: this.meta(name),
      spec: specJson,
    });

    const service = new DnsService(this, 'service', {
      ...props.service,
      stack,
      name,
      component,
      version: image.tag,
      selector,
      labels: props.labels,
    });
    this.serviceNames = service.serviceNames;
  }
}

/**
 * The signed view's transfer with the signer allowed (its pod networks) and, with `tsig`, the
 * key etcdns requires of it.
 */
export function signerTransfer(transfer: TransferProps | undefined, dnssec: DnssecProps): TransferProps {
  const keySecret =
    transfer?.keySecret ??
    (dnssec.tsig ? { name: dnssec.tsig.secretName, key: dnssec.tsig.bindKey ?? SIGNER_DEFAULTS.bindKey } : undefined);
  return {
    ...transfer,
    allowCidrs: [...new Set([...(transfer?.allowCidrs ?? []), ...dnssec.podCidrs])],
    ...(keySecret ? { keySecret } : {}),
  };
}

/** The view signed: the one named, else the only one. */
export function signedViewName(dnssec: DnssecProps, views: readonly string[]): string | undefined {
  return dnssec.view ?? (views.length === 1 ? views[0] : undefined);
}

const cidrListProblems = (value: unknown, path: string, required: boolean): string[] => {
  if (value === undefined && !required) return [];
  if (!Array.isArray(value) || (required && value.length === 0))
    return [`${path}: must be a list of CIDRs such as "10.244.0.0/16" (got ${show(value)})`];
  return value.flatMap((cidr, i) => settingProblems(network, cidr, `${path}[${i}]`));
};

/**
 * Problems of the `dnssec` props against the stack's views and zones, each naming its field.
 * `views`: each view's name and zones; `zones`: the stack's zones.
 */
export function dnssecProblems(
  dnssec: DnssecProps | undefined,
  views: readonly { name: string; zones: readonly string[] }[],
  zones: readonly ZoneProps[],
  path: string,
): string[] {
  if (dnssec === undefined) return [];
  const problems = [...workloadProblems(dnssec, path)];
  const names = views.map((v) => v.name);
  const viewName = signedViewName(dnssec, names);
  const view = views.find((v) => v.name === viewName);
  if (dnssec.view === undefined && views.length > 1)
    problems.push(`${path}.view: required with more than one view (views: ${names.map(show).join(', ')})`);
  else if (!view)
    problems.push(`${path}.view: no such view ${show(dnssec.view)} (views: ${names.map(show).join(', ')})`);
  if (dnssec.zones !== undefined && (!Array.isArray(dnssec.zones) || dnssec.zones.length === 0))
    problems.push(`${path}.zones: must list at least one zone of the view (got ${show(dnssec.zones)})`);
  else if (view)
    (dnssec.zones ?? []).forEach((zone, i) => {
      if (typeof zone !== 'string' || !view.zones.map(canonicalName).includes(canonicalName(zone)))
        problems.push(`${path}.zones[${i}]: ${show(zone)} is no zone of view ${show(view.name)}`);
    });
  // A zone's own transfer replaces the view's in every view: the signer would not be allowed there.
  const signed = view ? signedZoneNames(dnssec, view.zones) : [];
  zones.forEach((z, i) => {
    if (z?.transfer && signed.map(canonicalName).includes(canonicalName(z.name)))
      problems.push(
        `zones[${i}].transfer: ${show(z.name)} is signed (${path}): give its secondaries to ${path}.secondaries, not a transfer of its own`,
      );
  });
  problems.push(
    ...cidrListProblems(dnssec.podCidrs, `${path}.podCidrs`, true),
    ...cidrListProblems(dnssec.secondaries?.allowCidrs, `${path}.secondaries.allowCidrs`, false),
    ...signerPolicyProblems(dnssec.policy, `${path}.policy`),
    ...refreshIntervalProblems(dnssec.refreshInterval, `${path}.refreshInterval`),
    ...dnsServiceProblems(dnssec.service, `${path}.service`),
  );
  (dnssec.secondaries?.notify ?? []).forEach((n, i) =>
    problems.push(...settingProblems(upstream, n, `${path}.secondaries.notify[${i}]`)),
  );
  const tsig = dnssec.tsig;
  if (tsig) {
    problems.push(...k8sName(tsig.secretName, `${path}.tsig.secretName`, 'subdomain', 253));
    if (typeof tsig.keyName !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(tsig.keyName))
      problems.push(
        `${path}.tsig.keyName: must be a key name such as "signer.example.org" (got ${show(tsig.keyName)})`,
      );
    for (const field of ['knotKey', 'bindKey'] as const)
      if (tsig[field] !== undefined && !SECRET_KEY.test(tsig[field]))
        problems.push(`${path}.tsig.${field}: must be a Secret key (got ${show(tsig[field])})`);
  }
  problems.push(
    ...sizeProblems(dnssec.storage?.size, `${path}.storage.size`),
    ...sizeProblems(dnssec.tmpSizeLimit, `${path}.tmpSizeLimit`),
  );
  problems.push(...k8sName(dnssec.storage?.storageClassName, `${path}.storage.storageClassName`, 'subdomain', 253));
  return problems;
}

/** The zones signed: those named, else every zone of the view. */
export function signedZoneNames(dnssec: DnssecProps, viewZones: readonly string[]): string[] {
  return dnssec.zones ?? [...viewZones];
}
