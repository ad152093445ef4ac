// The DNS wire parser (every UDP and TCP query goes through it first). Contract: any bytes give a
// result, never an exception; a query's name is a valid wire name (labels of 1-63 octets, at most
// 255 in all) inside the message; an error is FORMERR, NOTIMP or BADVERS.
import assert from 'node:assert/strict';
import { RCODE } from '../../src/runtime/dns-server/wire/dns-constants.ts';
import { nameFromWire, parseQuery } from '../../src/runtime/dns-server/wire/query-parser.ts';
import type { FuzzTarget } from '../engine.ts';

const ERRORS = new Set<number>([RCODE.FORMERR, RCODE.NOTIMP, RCODE.BADVERS]);

export const dnsQuery: FuzzTarget = {
  name: 'dns-query',
  maxLength: 1024,
  // Header flag bytes, an OPT record's type and class, compression pointers, common qtypes.
  dictionary: [
    '\x00\x00\x29\x10\x00',
    '\x00\x29',
    '\xc0\x0c',
    '\x00\x01\x00\x01',
    '\x00\xff',
    '\x00\xfc',
    '\x07example\x03com\x00',
  ],
  run(data) {
    const r = parseQuery(data);
    if (r.kind === 'drop') return;
    assert.ok(r.id >= 0 && r.id <= 0xffff);
    if (r.kind === 'error') {
      assert.ok(ERRORS.has(r.rcode), `unexpected rcode ${r.rcode} (${r.reason})`);
      assert.ok(r.questionEnd === 0 || r.questionEnd <= data.length);
      return;
    }
    assert.ok(r.questionEnd > 12 && r.questionEnd <= data.length, `question end ${r.questionEnd}`);
    assert.ok(r.wireName.length <= 255, `name of ${r.wireName.length} octets`);
    assert.ok(r.wireName.endsWith('\x00'));
    for (let off = 0; off < r.wireName.length - 1;) {
      const len = r.wireName.charCodeAt(off);
      assert.ok(len >= 1 && len <= 63, `label length ${len}`);
      off += 1 + len;
    }
    assert.equal(r.wireName, r.wireName.toLowerCase());
    const name = nameFromWire(r.wireName);
    if (name !== undefined) assert.ok(name.endsWith('.'));
    assert.ok(r.type >= 0 && r.type <= 0xffff && r.class >= 0 && r.class <= 0xffff);
  },
};
