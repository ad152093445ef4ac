// A catalog zone (RFC 9432, version 2) of the zones a server transfers: secondaries configured
// with the catalog alone add a new zone, and remove a deleted one, by themselves.
import * as v from 'valibot';
import { zoneName } from './field-rules.ts';

export const catalogSchema = v.object({
  /**
   * The catalog's apex, e.g. "catalog.etcdns.invalid.": a name of its own, neither one of the
   * server's zones nor above or below one. Transferred and NOTIFYed with the server's `transfer`.
   */
  zone: zoneName,
});

export type CatalogConfig = v.InferOutput<typeof catalogSchema>;
export type CatalogInput = v.InferInput<typeof catalogSchema>;
