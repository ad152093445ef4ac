// The SkyDNS value decoder (every value read from etcd, by the server and the controller).
// Contract: any text decodes or gives an error result, never an exception; a decoded entry
// encodes to a value that decodes to the same entry (what the controller writes, it reads back).
import assert from 'node:assert/strict';
import { decodeEntry, encodeEntry } from '../../src/skydns/skydns-entry.ts';
import type { FuzzTarget } from '../engine.ts';

export const skydnsEntry: FuzzTarget = {
  name: 'skydns-entry',
  maxLength: 4096,
  dictionary: [
    '"host"',
    '"Host"',
    '"port"',
    '"ttl"',
    '"text"',
    '"mail"',
    '"targetstrip"',
    '"priority"',
    '"weight"',
    '"group"',
    '"owner"',
    '"resource"',
    'true',
    'null',
    '1e3',
    '-1',
    '0.5',
    '{',
    '}',
    '[',
    ']',
    ':',
    ',',
    '"\\u0000"',
  ],
  run(data) {
    const r = decodeEntry(data.toString('utf8'));
    if (!r.ok) {
      assert.equal(typeof r.error, 'string');
      return;
    }
    const again = decodeEntry(encodeEntry(r.entry));
    assert.ok(again.ok, 'an encoded entry decodes');
    assert.deepEqual(again.entry, r.entry);
  },
};
