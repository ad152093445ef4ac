// Table tests of an EDNS option appended to an answer (NSID, RFC 5001; keepalive has its own in
// tcp-keepalive.test.ts): after the OPT record that ends the message, within the size limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packet } from 'dns2';
import { withOption } from '../../../../src/runtime/dns-server/wire/edns-option.ts';

/** An OPT record (root owner, 1232 bytes) with these options already. */
function opt(options = Buffer.alloc(0)): Buffer {
  const head = Buffer.from('00002904d000000000', 'hex');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(options.length);
  return Buffer.concat([head, length, options]);
}
const COOKIE = Buffer.from('000a00080102030405060708', 'hex');
/** A TSIG record (owner "k.") with an empty MAC: its shape is all that counts here. */
const TSIG_RR = Buffer.from(
  '016b0000fa00ff00000000001d0b686d61632d73686132353600000000000000012c0000beef00000000',
  'hex',
);

/** An answer with one A record and these additional records. */
function answer(additional: Buffer[]): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 1, qr: 1, aa: 1 });
  p.questions = [{ name: 'www.example.org', type: 1, class: 1 } as Packet['questions'][number]];
  p.answers = [{ name: 'www.example.org', type: 1, class: 1, ttl: 60, address: '192.0.2.1' } as never];
  const out = Buffer.concat([p.toBuffer(), ...additional]);
  out.writeUInt16BE(additional.length, 10);
  return out;
}

const NSID = Buffer.from('etcdns-0');
const plain = answer([opt()]);

// [case, answer, limit, appended: the OPT record's rdata length before (undefined: unchanged)]
const cases: [string, Buffer, number, number | undefined][] = [
  ['an OPT record ends the answer: appended', plain, 512, 0],
  ['after an option already there: appended as the last', answer([opt(COOKIE)]), 512, COOKIE.length],
  ['exactly at the size limit: appended', plain, plain.length + 4 + NSID.length, 0],
  ['one byte over the size limit: unchanged', plain, plain.length + 3 + NSID.length, undefined],
  ['a TSIG record ends the answer: unchanged (the signature covers it)', answer([opt(), TSIG_RR]), 512, undefined],
  ['no OPT record (the query had no EDNS): unchanged', answer([]), 512, undefined],
];

for (const [name, msg, limit, rdataBefore] of cases) {
  test(`withOption: NSID, ${name}`, () => {
    const out = withOption(msg, 3, NSID, limit);
    if (rdataBefore === undefined) return assert.equal(out, msg);
    assert.deepEqual(out.subarray(0, msg.length - rdataBefore - 2), msg.subarray(0, msg.length - rdataBefore - 2));
    // The OPT record's rdata length grew by the option's size; the option comes last: code 3, length, identifier.
    assert.equal(out.readUInt16BE(msg.length - rdataBefore - 2), rdataBefore + 4 + NSID.length);
    assert.deepEqual(out.subarray(msg.length), Buffer.concat([Buffer.from([0, 3, 0, NSID.length]), NSID]));
    assert.equal(Packet.parse(out).additionals.length, 1);
  });
}
