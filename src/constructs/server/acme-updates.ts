// DNS UPDATE for ACME DNS-01 challenges as props: the server config's `update`
// (src/config/update-config.ts) with the key file named by a reference to an existing Secret, as
// the transfer keys are (zone-transfer.ts: mounted read-only, only its path in the config). See
// docs/acme.md.
import type * as v from 'valibot';
import { suffixOutsideZones } from '../../config/server-config.ts';
import { problemsOf } from '../../config/schema-problems.ts';
import { updateKeySchema, type UpdateConfigInput, updateSchema } from '../../config/update-config.ts';
import { show } from '../base/kubernetes-rules.ts';
import { keyFilePath, keySecretProblems, type TransferKeySecretProps } from './zone-transfer.ts';

export type AcmeKeyProps = v.InferInput<typeof updateKeySchema>;

export interface AcmeProps {
  /**
   * The Secret holding the update keys as a BIND key file
   * (`key "acme" { algorithm hmac-sha256; secret "base64"; };`), mounted read-only into the
   * server pods (`key` defaults to "tsig.key"). The server reads it at start: restart the pods
   * after rotating it. cert-manager's `tsigSecretSecretRef` needs the bare base64 secret: a
   * Secret of its own, or another key of this one.
   */
  readonly keySecret: TransferKeySecretProps;
  /**
   * The keys that may update, each with its scope: TXT at `_acme-challenge.<name>` for names at
   * or below its `suffixes` (in the view's zones); `names: 'any'`: TXT at any name below them;
   * `updatesPerMinute` (default 60) its rate limit. Anything else is REFUSED.
   */
  readonly keys: AcmeKeyProps[];
  /**
   * How long an update's records live (an etcd lease nothing keeps alive), seconds.
   * @default 3600
   */
  readonly leaseSeconds?: number;
}

/** The config file's `update`. */
export function acmeUpdateConfig(acme: AcmeProps): UpdateConfigInput {
  return {
    keyFile: keyFilePath(acme.keySecret),
    keys: acme.keys,
    ...(acme.leaseSeconds !== undefined ? { leaseSeconds: acme.leaseSeconds } : {}),
  };
}

/** What the server's start-up would refuse of `acme`, at synth, naming the prop. */
export function acmeProblems(acme: AcmeProps | undefined, zones: readonly { name: string }[], path: string): string[] {
  if (acme === undefined) return [];
  if (acme === null || typeof acme !== 'object' || Array.isArray(acme))
    return [`${path}: must be an object { keySecret, keys, leaseSeconds? } (got ${show(acme)})`];
  if ('keyFile' in acme)
    return [`${path}.keyFile: not a prop; name the Secret holding the key file with keySecret: { name, key? }`];
  const secret = acme.keySecret as TransferKeySecretProps | undefined;
  if (secret === undefined) return [`${path}.keySecret: required (an existing Secret holding the key file)`];
  const problems = keySecretProblems(secret, `${path}.keySecret`);
  if (problems.length > 0) return problems;
  if (!Array.isArray(acme.keys))
    return [`${path}.keys: must be a list of { name, suffixes, names?, updatesPerMinute? } (got ${show(acme.keys)})`];
  const config = acmeUpdateConfig(acme);
  problems.push(...problemsOf(updateSchema, config, path));
  if (problems.length > 0) return problems;
  const at = suffixOutsideZones({ zones: [...zones], update: { keys: config.keys } });
  if (at)
    problems.push(
      `${path}.keys[${at[0]}].suffixes[${at[1]}]: must be in one of the zones (got ${show(config.keys[at[0]]!.suffixes[at[1]])})`,
    );
  return problems;
}
