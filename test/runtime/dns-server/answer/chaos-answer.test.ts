// Table tests of the CHAOS names a server answers about itself (as Knot answers them: TXT of
// id.server./hostname.bind. the identifier, version.server./version.bind. the version when on;
// anything else REFUSED, never authoritative, TTL 0).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaosAnswer, type ServerIdentity } from '../../../../src/runtime/dns-server/answer/chaos-answer.ts';
import { CLASS, RCODE, TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';

const ALL: ServerIdentity = { id: 'etcdns-7d9f-abcde', version: 'etcdns 0.1.0' };
const DEFAULT: ServerIdentity = { id: 'etcdns-7d9f-abcde', version: undefined };
const NONE: ServerIdentity = { id: undefined, version: undefined };

// [case, name, type, identity, the TXT string answered (undefined: REFUSED)]
const cases: [string, string, number, ServerIdentity, string | undefined][] = [
  ['id.server. TXT: the identifier', 'id.server.', TYPE.TXT, DEFAULT, 'etcdns-7d9f-abcde'],
  ['hostname.bind. TXT: the identifier', 'hostname.bind.', TYPE.TXT, DEFAULT, 'etcdns-7d9f-abcde'],
  ['version.bind. TXT, version off (the default): REFUSED', 'version.bind.', TYPE.TXT, DEFAULT, undefined],
  ['version.server. TXT, version off: REFUSED', 'version.server.', TYPE.TXT, DEFAULT, undefined],
  ['version.bind. TXT, version on: the version', 'version.bind.', TYPE.TXT, ALL, 'etcdns 0.1.0'],
  ['version.server. TXT, version on: the version', 'version.server.', TYPE.TXT, ALL, 'etcdns 0.1.0'],
  ['id.server. TXT, identity off: REFUSED', 'id.server.', TYPE.TXT, NONE, undefined],
  ['hostname.bind. TXT, identity off: REFUSED', 'hostname.bind.', TYPE.TXT, NONE, undefined],
  ['id.server. A: REFUSED (TXT only)', 'id.server.', TYPE.A, ALL, undefined],
  ['id.server. ANY: REFUSED (TXT only)', 'id.server.', TYPE.ANY, ALL, undefined],
  ['authors.bind. TXT: REFUSED', 'authors.bind.', TYPE.TXT, ALL, undefined],
  ['a name below id.server.: REFUSED', 'x.id.server.', TYPE.TXT, ALL, undefined],
  ['one of our own zone names in CHAOS: REFUSED', 'www.example.org.', TYPE.TXT, ALL, undefined],
];

for (const [name, qname, type, identity, text] of cases) {
  test(`chaosAnswer: ${name}`, () => {
    const answer = chaosAnswer(qname, type, identity);
    assert.equal(answer.authoritative, false);
    assert.deepEqual(answer.authority, []);
    if (text === undefined) {
      assert.equal(answer.rcode, RCODE.REFUSED);
      return assert.deepEqual(answer.answer, []);
    }
    assert.equal(answer.rcode, RCODE.NOERROR);
    assert.deepEqual(answer.answer, [
      { name: qname, type: TYPE.TXT, class: CLASS.CH, ttl: 0, text: [Buffer.from(text)] },
    ]);
  });
}
