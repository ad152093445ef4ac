// IXFR's difference sequence from two states of a zone (RFC 1995 4), table-driven: which records
// are deleted and added, in which order, and when the whole zone goes instead.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import type { ResourceRecord } from '../../../../src/runtime/dns-server/wire/dns-message.ts';
import { soaRecord } from '../../../../src/runtime/dns-server/answer/resolver.ts';
import { resolveZone } from '../../../../src/runtime/dns-server/answer/zones.ts';
import { incrementalTransfer } from '../../../../src/runtime/dns-server/transfer/incremental-transfer.ts';

const soa = (serial: number): ResourceRecord => soaRecord(resolveZone({ name: 'example.org' }), serial);
const a = (name: string, address: string, ttl = 300): ResourceRecord => ({ name, ttl, type: TYPE.A, address });

const ZONE = Array.from({ length: 10 }, (_, i) => a(`h${i}.example.org.`, `10.0.0.${i}`));

/** One line per record: "SOA <serial>" or "<name> <address> <ttl>". */
const show = (rs: readonly ResourceRecord[]) =>
  rs.map((r) =>
    r.type === TYPE.SOA ? `SOA ${r.serial}` : r.type === TYPE.A ? `${r.name} ${r.address} ${r.ttl}` : '?',
  );

const rows: {
  name: string;
  before: ResourceRecord[];
  after: ResourceRecord[];
  expect: string[] | 'whole zone';
}[] = [
  {
    name: 'one record added',
    before: ZONE,
    after: [...ZONE, a('new.example.org.', '10.0.1.1')],
    expect: ['SOA 9', 'SOA 5', 'SOA 9', 'new.example.org. 10.0.1.1 300', 'SOA 9'],
  },
  {
    name: 'one record deleted',
    before: ZONE,
    after: ZONE.slice(1),
    expect: ['SOA 9', 'SOA 5', 'h0.example.org. 10.0.0.0 300', 'SOA 9', 'SOA 9'],
  },
  {
    name: 'an address changed: the old record deleted, the new one added',
    before: ZONE,
    after: [a('h0.example.org.', '10.9.9.9'), ...ZONE.slice(1)],
    expect: ['SOA 9', 'SOA 5', 'h0.example.org. 10.0.0.0 300', 'SOA 9', 'h0.example.org. 10.9.9.9 300', 'SOA 9'],
  },
  {
    name: 'a TTL changed: the record goes and comes back with the new TTL',
    before: ZONE,
    after: [a('h0.example.org.', '10.0.0.0', 60), ...ZONE.slice(1)],
    expect: ['SOA 9', 'SOA 5', 'h0.example.org. 10.0.0.0 300', 'SOA 9', 'h0.example.org. 10.0.0.0 60', 'SOA 9'],
  },
  {
    name: 'no change (another serial for the same state): an empty sequence',
    before: ZONE,
    after: ZONE,
    expect: ['SOA 9', 'SOA 5', 'SOA 9', 'SOA 9'],
  },
  {
    name: 'a record listed twice is deleted once',
    before: [...ZONE, ZONE[0]!],
    after: ZONE.slice(1),
    expect: ['SOA 9', 'SOA 5', 'h0.example.org. 10.0.0.0 300', 'SOA 9', 'SOA 9'],
  },
  {
    name: 'every record replaced: the whole zone instead',
    before: ZONE,
    after: ZONE.map((r) => ({ ...r, ttl: 1 })),
    expect: 'whole zone',
  },
  { name: 'from an empty zone: the whole zone instead', before: [], after: ZONE, expect: 'whole zone' },
  {
    name: 'a one-record zone whose record changed: the whole zone (3 records) is smaller than the changes (6)',
    before: [a('x.example.org.', '10.0.0.1')],
    after: [a('x.example.org.', '10.0.0.2')],
    expect: 'whole zone',
  },
];

describe('incrementalTransfer', () => {
  for (const row of rows) {
    test(row.name, () => {
      const result = incrementalTransfer(soa(5), soa(9), row.before, row.after);
      if (row.expect === 'whole zone') assert.equal(result, undefined);
      else {
        assert.ok(result);
        assert.deepEqual(show(result.records), row.expect);
      }
    });
  }
});
