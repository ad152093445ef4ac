// Table tests of edns-tcp-keepalive in an answer (RFC 7828): appended to an OPT record that ends
// the message, in units of 100 ms; any other answer left as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Packet } from 'dns2';
import { keepaliveUnits, withKeepalive } from '../../../../src/runtime/dns-server/wire/tcp-keepalive.ts';

/** An OPT record (root owner, 1232 bytes, no options). */
const OPT_RR = Buffer.from('00002904d0000000000000', 'hex');
/** A TSIG record (owner "k.") with an empty MAC: its shape is all that counts here. */
const TSIG_RR = Buffer.from(
  '016b0000fa00ff00000000001d0b686d61632d73686132353600000000000000012c0000beef00000000',
  'hex',
);

/** An answer with one TXT record of these strings and these additional records. */
function answer(additional: Buffer[], text = ['x']): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id: 1, qr: 1, aa: 1 });
  p.questions = [{ name: 'www.example.org', type: 16, class: 1 } as Packet['questions'][number]];
  p.answers = [{ name: 'www.example.org', type: 16, class: 1, ttl: 60, data: text } as never];
  const out = Buffer.concat([p.toBuffer(), ...additional]);
  out.writeUInt16BE(additional.length, 10);
  return out;
}

/** An answer of 65,532 bytes ending with an OPT record: 6 more would not fit a TCP message. */
function nearly64KiB(): Buffer {
  const strings = Array.from({ length: 254 }, () => 'x'.repeat(255));
  const rest = 65_532 - answer([OPT_RR], strings).length - 1;
  const out = answer([OPT_RR], [...strings, 'y'.repeat(rest)]);
  assert.equal(out.length, 65_532);
  return out;
}

/** The edns-tcp-keepalive option at the end of `msg` (code 11, length 2), or undefined. */
function keepaliveAtEnd(msg: Buffer): number | undefined {
  const at = msg.length - 6;
  return msg.readUInt16BE(at) === 11 && msg.readUInt16BE(at + 2) === 2 ? msg.readUInt16BE(at + 4) : undefined;
}

// [case, answer, units, appended (the units at the end; undefined: unchanged)]
const cases: [string, Buffer, number, number | undefined][] = [
  ['an OPT record ends the answer: appended, its length grown by 6', answer([OPT_RR]), 100, 100],
  ['a TSIG record ends the answer: unchanged (the signature covers it)', answer([OPT_RR, TSIG_RR]), 100, undefined],
  ['no OPT record: unchanged', answer([]), 100, undefined],
  ['an answer within 6 bytes of 64 KiB: unchanged', nearly64KiB(), 100, undefined],
];

for (const [name, msg, units, want] of cases) {
  test(`withKeepalive: ${name}`, () => {
    const out = withKeepalive(msg, units);
    if (want === undefined) return assert.equal(out, msg);
    assert.equal(out.length, msg.length + 6);
    assert.equal(keepaliveAtEnd(out), want);
    const parsed = Packet.parse(out);
    assert.equal(parsed.additionals.length, 1);
  });
}

// [ms, units]
const units: [number, number][] = [
  [10_000, 100],
  [500, 5],
  [150, 2],
  [0, 0],
  [10_000_000, 65535],
];
for (const [ms, want] of units)
  test(`keepaliveUnits: ${ms} ms is ${want} x 100 ms`, () => assert.equal(keepaliveUnits(ms), want));
