// Zone transfers out of a DNS server as props: the config's `transfer` (src/config/transfer-config.ts)
// with the TSIG key file named by a reference to an existing Secret (made with kubectl, an
// ExternalSecret, ...). The server pod mounts each Secret once, read-only, and the config file
// carries only the path of the key file in it: no key is ever in the manifests.
import type { k8s } from 'cdk8s-plus-27';
import type * as v from 'valibot';
import { network } from '../../config/field-rules.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import { transferSchema } from '../../config/transfer-config.ts';
import type { CatalogInput } from '../../config/catalog-config.ts';
import { catalogClash } from '../../config/server-config.ts';
import type { ServerZoneConfig, ZoneConfig } from '../../config/zone-config.ts';
import { SECRET_KEY, k8sName, show } from '../base/kubernetes-rules.ts';

export interface TransferKeySecretProps {
  /** An existing Secret in the stack's namespace holding the key file. */
  readonly name: string;
  /**
   * The Secret's key holding the key file.
   * @default "tsig.key"
   */
  readonly key?: string;
}

export interface TransferProps {
  /**
   * The secondaries allowed to transfer (AXFR/IXFR over TCP), as CIDRs such as "192.0.2.53/32";
   * everyone else is REFUSED. The NetworkPolicy lets them reach the DNS port.
   */
  readonly allowCidrs: string[];
  /**
   * Secondaries sent a NOTIFY on every change of a zone, "ip" or "ip:port" (port 53 when absent).
   * @default - none: the secondaries find changes by their SOA refresh timer
   */
  readonly notify?: string[];
  /**
   * The Secret holding the TSIG keys as a BIND key file
   * (`key "name" { algorithm hmac-sha256; secret "base64"; };`), mounted read-only into the
   * server pods. Transfers must then be signed with one of its keys; NOTIFYs are signed with the
   * first. The server reads it at start: restart the pods after rotating it.
   * @default - no TSIG: the address list alone decides
   */
  readonly keySecret?: TransferKeySecretProps;
}

export interface ZoneProps extends ZoneConfig {
  /**
   * Transfers of this zone, in every view answering it; replaces the server's (or the view's)
   * `transfer` for this zone.
   * @default - the view's `transfer`, else `server.transfer`
   */
  readonly transfer?: TransferProps;
}

/** Where the Secrets are mounted, one directory each: `<dir>/<secret name>/<key>`. */
export const TSIG_DIR = '/etc/etcdns/tsig';
export const DEFAULT_TSIG_KEY = 'tsig.key';

type TransferInput = v.InferInput<typeof transferSchema>;
type ServerZoneInput = Omit<ServerZoneConfig, 'transfer'> & { transfer?: TransferInput };

export interface TransferFiles {
  /** The server-wide `transfer` of the config file. */
  transfer?: TransferInput;
  /** The zones of the config file, each with its own `transfer` when it has one. */
  zones: ServerZoneInput[];
  /** One Secret volume per Secret named, holding only the keys named. */
  volumes: k8s.Volume[];
  mounts: k8s.VolumeMount[];
  /** Every network allowed to transfer some zone of the server, sorted, each once. */
  cidrs: string[];
  /** Every secondary NOTIFYed for some zone of the server ("ip" or "ip:port"), sorted, each once. */
  notify: string[];
}

const keyOf = (secret: TransferKeySecretProps) => secret.key ?? DEFAULT_TSIG_KEY;

/** The path of a Secret's key file in the server pods. */
export const keyFilePath = (secret: TransferKeySecretProps) => `${TSIG_DIR}/${secret.name}/${keyOf(secret)}`;

/**
 * The config's transfer settings with key file paths, and the volumes those paths are in (also
 * of `otherSecrets`: the update keys', docs/acme.md).
 */
export function transferFiles(
  server: TransferProps | undefined,
  zones: readonly ZoneProps[],
  catalog = false,
  otherSecrets: readonly TransferKeySecretProps[] = [],
): TransferFiles {
  const used = [server, ...zones.map((z) => z.transfer)].filter((t) => t !== undefined);
  const keys = new Map<string, Set<string>>();
  for (const keySecret of [...used.map((t) => t.keySecret), ...otherSecrets])
    if (keySecret) keys.set(keySecret.name, (keys.get(keySecret.name) ?? new Set()).add(keyOf(keySecret)));
  const secrets = [...keys.keys()].sort();
  // Secret names may be longer than a volume name can be, or hold dots.
  const volumeName = (secret: string) => `tsig-${secrets.indexOf(secret)}`;
  const config = (t: TransferProps): TransferInput => ({
    allowCidrs: [...t.allowCidrs],
    ...(t.notify ? { notify: [...t.notify] } : {}),
    ...(t.keySecret ? { keyFile: keyFilePath(t.keySecret) } : {}),
  });
  // A zone with its own settings never uses the server's: only the networks that apply are opened.
  // A catalog goes with the server's, even when every zone has its own.
  const applied = [...zones.map((z) => z.transfer ?? server), ...(catalog ? [server] : [])];
  const cidrs = applied.flatMap((t) => t?.allowCidrs ?? []);
  const notify = applied.flatMap((t) => t?.notify ?? []);
  return {
    ...(server ? { transfer: config(server) } : {}),
    zones: zones.map(({ transfer, ...zone }) => (transfer ? { ...zone, transfer: config(transfer) } : zone)),
    volumes: secrets.map((secret) => ({
      name: volumeName(secret),
      secret: {
        secretName: secret,
        items: [...keys.get(secret)!].sort().map((key) => ({ key, path: key })),
        defaultMode: 0o440,
      },
    })),
    mounts: secrets.map((secret) => ({
      name: volumeName(secret),
      mountPath: `${TSIG_DIR}/${secret}`,
      readOnly: true,
    })),
    cidrs: [...new Set(cidrs)].sort(),
    notify: [...new Set(notify)].sort(),
  };
}

export function transferProblems(t: TransferProps | undefined, path: string): string[] {
  if (t === undefined) return [];
  if (t === null || typeof t !== 'object' || Array.isArray(t))
    return [`${path}: must be an object { allowCidrs, notify?, keySecret? } (got ${show(t)})`];
  const problems = problemsOf(
    transferSchema,
    { allowCidrs: t.allowCidrs, ...(t.notify !== undefined ? { notify: t.notify } : {}) },
    path,
  );
  // They also go into a NetworkPolicy: host bits set are refused, as in networkPolicy.dnsFrom.
  if (problems.length === 0)
    t.allowCidrs.forEach((cidr, i) => problems.push(...problemsOf(network, cidr, `${path}.allowCidrs[${i}]`)));
  if ('keyFile' in t)
    problems.push(`${path}.keyFile: not a prop; name the Secret holding the key file with keySecret: { name, key? }`);
  problems.push(...keySecretProblems(t.keySecret, `${path}.keySecret`));
  return problems;
}

/** The problems of a reference to a Secret holding a key file (transfers' and updates' keys). */
export function keySecretProblems(secret: TransferKeySecretProps | undefined, path: string): string[] {
  if (secret === undefined) return [];
  if (secret === null || typeof secret !== 'object')
    return [`${path}: must be { name, key? }, an existing Secret (got ${show(secret)})`];
  const problems: string[] = [];
  if (secret.name === undefined) problems.push(`${path}.name: required (an existing Secret's name)`);
  problems.push(...k8sName(secret.name, `${path}.name`, 'subdomain', 253));
  const key = secret.key;
  if (key !== undefined && (typeof key !== 'string' || !SECRET_KEY.test(key) || key.startsWith('..') || key === '.'))
    problems.push(`${path}.key: must be a Secret key of letters, digits, "-", "_" and "." (got ${show(key)})`);
  return problems;
}

/** The problems of each zone's own `transfer`. */
export function zoneTransferProblems(zones: readonly ZoneProps[] | undefined, path: string): string[] {
  if (!Array.isArray(zones)) return [];
  return zones.flatMap((z, i) =>
    z !== null && typeof z === 'object' ? transferProblems(z.transfer, `${path}[${i}].transfer`) : [],
  );
}

/**
 * What the server's start-up would refuse of a view's catalog, at synth: it goes to the
 * secondaries of a `transfer` (the view's or the server's), and its name is its own.
 */
export function catalogProblems(
  catalog: CatalogInput | undefined,
  transfer: TransferProps | undefined,
  zones: readonly ZoneProps[],
  path: string,
): string[] {
  if (typeof catalog?.zone !== 'string') return [];
  const problems: string[] = [];
  if (!transfer) problems.push(`${path}.zone: needs transfer (the view's or the server's): the catalog's secondaries`);
  const clash = catalogClash(catalog.zone, zones);
  if (clash)
    problems.push(
      `${path}.zone: must be a name of its own, neither one of zones nor above or below one (it clashes with ${JSON.stringify(clash)})`,
    );
  return problems;
}
