// Reverse zones the controller publishes PTR records in: for each A/AAAA it publishes whose
// address lies in one of these networks, a PTR from the address's reverse name back to the name.
import * as v from 'valibot';
import { parseCidr } from '../dns/cidr.ts';
import { list, objectName } from './field-rules.ts';

/** A network whose reverse zone is delegated to us: IPv4 at an octet boundary, IPv6 at a nibble. */
export const reverseNetwork = v.pipe(
  v.string('must be a CIDR such as "10.9.176.0/24" or "fd00:10::/32"'),
  v.rawCheck(({ dataset, addIssue }) => {
    const parsed = parseCidr(dataset.value as string);
    if (!parsed.ok) return addIssue({ message: parsed.error });
    const step = parsed.cidr.family === 4 ? 8 : 4;
    if (parsed.cidr.bits % step !== 0) {
      addIssue({
        message: `"${dataset.value as string}": a reverse zone ends at ${parsed.cidr.family === 4 ? 'an octet (/8, /16, /24, /32)' : 'a nibble (a multiple of /4)'}`,
      });
    }
  }),
);

export const reverseZoneSchema = v.strictObject(
  {
    /** The network, e.g. "10.9.176.0/24" (zone 176.9.10.in-addr.arpa). */
    network: reverseNetwork,
    /** Views that publish PTRs in it; default every view. */
    views: v.optional(list(objectName, 'view names')),
  },
  'unknown field; known: network, views',
);

export const reverseZonesSchema = v.array(reverseZoneSchema, 'must be a list of { network, views? }');
export type ReverseZoneConfig = v.InferOutput<typeof reverseZoneSchema>;
