// The record types the controller publishes (and view rules match on), in one place.
export const RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'TXT', 'MX', 'SRV', 'PTR', 'NS'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
