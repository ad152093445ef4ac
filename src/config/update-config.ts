// Dynamic updates (RFC 2136) from TSIG keys, each scoped to what it may change: by default the TXT
// records of `_acme-challenge.` names below its suffixes (the ACME DNS-01 challenge), nothing else.
import * as v from 'valibot';
import { dnsName, integer, list, oneOf, path } from './field-rules.ts';

export const UPDATE_DEFAULTS = {
  /** An update's records live on an etcd lease this long: an issuer that never cleans up leaves nothing. */
  leaseSeconds: 3600,
  /** Updates a key may send per minute (a burst of as many, then one every 60/N s). */
  updatesPerMinute: 60,
} as const;

/** The names a key may change below its suffixes. */
export const UPDATE_NAME_SCOPES = ['acme-challenge', 'any'] as const;

export const updateKeySchema = v.object({
  /** The TSIG key's name, as in the key file (e.g. "acme-example"). */
  name: dnsName,
  /** The names below which the key may write (each in a served zone), e.g. "example.org". */
  suffixes: list(dnsName, 'names below which the key may write'),
  /**
   * "acme-challenge" (default): only `_acme-challenge.<name>` for names at or below a suffix;
   * "any": any name below a suffix (a challenge zone that `_acme-challenge` CNAMEs point into).
   */
  names: v.optional(oneOf(UPDATE_NAME_SCOPES)),
  /** Default UPDATE_DEFAULTS.updatesPerMinute (60). */
  updatesPerMinute: v.optional(integer(1, 60_000)),
});

export const updateSchema = v.object({
  /** BIND key file holding every update key (`key "name" { algorithm ...; secret "..."; };`). */
  keyFile: path,
  /** The keys allowed to update, with their scopes; a key of the file not listed here may change nothing. */
  keys: list(updateKeySchema, 'update keys with their scopes'),
  /** Seconds an update's records live (an etcd lease); default UPDATE_DEFAULTS.leaseSeconds (3600). */
  leaseSeconds: v.optional(integer(2, 7 * 86_400)),
});

export type UpdateConfig = v.InferOutput<typeof updateSchema>;
export type UpdateKeyConfig = v.InferOutput<typeof updateKeySchema>;
export type UpdateConfigInput = v.InferInput<typeof updateSchema>;
