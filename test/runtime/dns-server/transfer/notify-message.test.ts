// NOTIFY as bytes (RFC 1996) and TSIG on our own requests (RFC 8945), table-driven: the message's
// header and sections as dns2 decodes them, which answers count as the secondary's acknowledgement,
// and which signed answers to a signed NOTIFY are accepted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Packet } from 'dns2';
import { TYPE } from '../../../../src/runtime/dns-server/wire/dns-constants.ts';
import {
  notifyMessage,
  notifyReply,
  OPCODE_NOTIFY,
} from '../../../../src/runtime/dns-server/transfer/notify-message.ts';
import {
  findTsig,
  signRequest,
  TsigSigner,
  verifyRequest,
  verifyResponse,
  type TsigKey,
} from '../../../../src/runtime/dns-server/tsig/tsig.ts';

const SOA = {
  name: 'example.org.',
  ttl: 30,
  type: TYPE.SOA,
  mname: 'ns.example.org.',
  rname: 'hostmaster.example.org.',
  serial: 4711,
  refresh: 7200,
  retry: 1800,
  expire: 86400,
  minimum: 30,
} as const;
const KEY: TsigKey = {
  name: 'xfr.example.org.',
  algorithm: 'hmac-sha256.',
  secret: Buffer.from('notify test secret, 32 bytes....'),
};
const OTHER_KEY: TsigKey = { ...KEY, secret: Buffer.from('another secret entirely, 32 b...') };

describe('notifyMessage', () => {
  const msg = notifyMessage(0x1234, 'example.org.', SOA);
  const packet = Packet.parse(msg);

  test('a request (QR clear) with opcode NOTIFY and AA set, its id', () => {
    assert.equal(msg.readUInt16BE(0), 0x1234);
    assert.equal(msg[2]! & 0x80, 0, 'QR');
    assert.equal((msg[2]! >> 3) & 0x0f, OPCODE_NOTIFY);
    assert.equal(msg[2]! & 0x04, 0x04, 'AA');
  });

  test("the question is the zone's SOA; the answer carries the new SOA and its serial", () => {
    assert.deepEqual(
      packet.questions.map((q) => [q.name, q.type, q.class]),
      [['example.org', TYPE.SOA, 1]],
    );
    assert.equal(packet.answers.length, 1);
    assert.equal((packet.answers[0] as { serial?: number }).serial, 4711);
  });
});

/** An answer to `request` as a secondary sends it: QR set, the given opcode and rcode. */
function answerTo(request: Buffer, opcode: number, rcode: number, id = request.readUInt16BE(0)): Buffer {
  const out = Buffer.from(request);
  out.writeUInt16BE(id, 0);
  out[2] = 0x80 | (opcode << 3) | 0x04;
  out[3] = rcode;
  return out;
}

describe('notifyReply', () => {
  const request = notifyMessage(77, 'example.org.', SOA);
  const rows: { name: string; reply: Buffer; expect: ReturnType<typeof notifyReply> }[] = [
    { name: 'NOERROR answer: acknowledged', reply: answerTo(request, OPCODE_NOTIFY, 0), expect: { kind: 'ack' } },
    {
      name: 'NOTAUTH answer: an error with its rcode',
      reply: answerTo(request, OPCODE_NOTIFY, 9),
      expect: { kind: 'error', rcode: 9 },
    },
    { name: 'another id: not ours', reply: answerTo(request, OPCODE_NOTIFY, 0, 78), expect: { kind: 'other' } },
    { name: 'a QUERY answer: not a NOTIFY answer', reply: answerTo(request, 0, 0), expect: { kind: 'other' } },
    { name: 'our own request echoed (QR clear): not an answer', reply: request, expect: { kind: 'other' } },
    { name: 'too short', reply: Buffer.from([0, 77, 0x84]), expect: { kind: 'other' } },
  ];
  for (const row of rows) test(row.name, () => assert.deepEqual(notifyReply(row.reply, 77), row.expect));
});

describe('TSIG on a NOTIFY and its answer', () => {
  const now = 1_800_000_000;
  const unsignedRequest = notifyMessage(5, 'example.org.', SOA);
  const { signed, mac } = signRequest(unsignedRequest, KEY, now);

  test('the signed request verifies with the key, as a secondary checks it', () => {
    const tsig = findTsig(signed);
    assert.ok(tsig);
    assert.deepEqual(verifyRequest(signed, tsig, [KEY], now + 10), { ok: true, key: KEY, tsig });
  });

  const signedAnswer = (key: TsigKey, over: Buffer) => {
    const tsig = findTsig(signed)!;
    return new TsigSigner(key, { ...tsig, mac: over }, () => now).sign(answerTo(unsignedRequest, OPCODE_NOTIFY, 0));
  };
  const rows: { name: string; answer: () => Buffer; at?: number; expect: boolean }[] = [
    { name: 'signed by the key over our MAC: accepted', answer: () => signedAnswer(KEY, mac), expect: true },
    { name: 'signed by another key: refused', answer: () => signedAnswer(OTHER_KEY, mac), expect: false },
    { name: 'signed over another MAC: refused', answer: () => signedAnswer(KEY, Buffer.alloc(32, 1)), expect: false },
    {
      name: 'unsigned: refused',
      answer: () => answerTo(notifyMessage(5, 'example.org.', SOA), OPCODE_NOTIFY, 0),
      expect: false,
    },
    {
      name: 'one byte changed after signing: refused',
      answer: () => {
        const b = signedAnswer(KEY, mac);
        b[3] = 5;
        return b;
      },
      expect: false,
    },
    { name: 'outside the 300 s fudge: refused', answer: () => signedAnswer(KEY, mac), at: now + 301, expect: false },
  ];
  for (const row of rows)
    test(row.name, () => assert.equal(verifyResponse(row.answer(), KEY, mac, row.at ?? now), row.expect));
});
