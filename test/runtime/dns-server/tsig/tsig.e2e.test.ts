// TSIG and the transfer allow list, table-driven, on requests the real dig signed (dig -y):
// each row one verdict of verifyRequest / decideTransfer, and the key-file parser's errors.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { checkTsig } from '../../../../src/runtime/dns-server/tsig/signed-query.ts';
import { decideTransfer, transferPolicy } from '../../../../src/runtime/dns-server/transfer/transfer-acl.ts';
import { parseQuery, type ParsedQuery } from '../../../../src/runtime/dns-server/wire/query-parser.ts';
import {
  findTsig,
  parseKeyFile,
  TSIG_ERROR,
  verifyRequest,
  type TsigKey,
} from '../../../../src/runtime/dns-server/tsig/tsig.ts';
import { tool } from '../../../support/tools.ts';

const SECRET = Buffer.from('a tsig secret for the table test').toString('base64');
/** A secret whose base64 holds "//", which is also a comment outside quotes. */
const SLASHES = Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02, 0x03]).toString('base64');
const KEY: TsigKey = { name: 'xfr.example.org.', algorithm: 'hmac-sha256.', secret: Buffer.from(SECRET, 'base64') };

/** The bytes of one query the real dig sends, signed with `-y spec`, caught on a loopback socket. */
async function digSigned(spec: string): Promise<Buffer> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const caught = new Promise<Buffer>((resolve) => socket.once('message', (m) => resolve(m)));
  const child = execFile(tool('dig'), [
    '@127.0.0.1',
    '-p',
    String(socket.address().port),
    '-y',
    spec,
    'example.org',
    'SOA',
    '+time=1',
    '+tries=1',
  ]);
  try {
    return await caught;
  } finally {
    child.kill();
    socket.close();
  }
}

describe('TSIG on requests signed by the real dig', () => {
  let signed: Buffer;
  let signedTime: number;
  before(async () => {
    signed = await digSigned(`hmac-sha256:xfr.example.org:${SECRET}`);
    signedTime = findTsig(signed)!.timeSigned;
  });

  const flipQuestion = (m: Buffer) => {
    const copy = Buffer.from(m);
    copy[13] = copy[13]! ^ 0x20;
    return copy;
  };
  const rows: { name: string; msg: () => Buffer; keys: TsigKey[]; skew?: number; want: number | 'ok' }[] = [
    { name: 'right key', msg: () => signed, keys: [KEY], want: 'ok' },
    { name: 'right key, 299 s clock skew (fudge 300)', msg: () => signed, keys: [KEY], skew: 299, want: 'ok' },
    {
      name: 'wrong secret',
      msg: () => signed,
      keys: [{ ...KEY, secret: Buffer.from('other') }],
      want: TSIG_ERROR.BADSIG,
    },
    { name: 'unknown key name', msg: () => signed, keys: [{ ...KEY, name: 'other.key.' }], want: TSIG_ERROR.BADKEY },
    {
      name: 'other algorithm',
      msg: () => signed,
      keys: [{ ...KEY, algorithm: 'hmac-sha512.' }],
      want: TSIG_ERROR.BADKEY,
    },
    { name: 'question changed after signing', msg: () => flipQuestion(signed), keys: [KEY], want: TSIG_ERROR.BADSIG },
    { name: 'clock 301 s ahead', msg: () => signed, keys: [KEY], skew: 301, want: TSIG_ERROR.BADTIME },
    { name: 'clock 400 s behind', msg: () => signed, keys: [KEY], skew: -400, want: TSIG_ERROR.BADTIME },
  ];
  for (const row of rows) {
    test(row.name, () => {
      const msg = row.msg();
      const verdict = verifyRequest(msg, findTsig(msg)!, row.keys, signedTime + (row.skew ?? 0));
      assert.equal(verdict.ok ? 'ok' : verdict.error, row.want);
    });
  }

  const policy = transferPolicy(['127.0.0.1/32', '10.0.0.0/8', 'fd00::/8'], [KEY]);
  const open = transferPolicy(['127.0.0.1/32'], []);
  const unsigned = () => {
    // The same question without its TSIG: ARCOUNT 0, cut before the record.
    const copy = Buffer.from(signed.subarray(0, findTsig(signed)!.start));
    copy.writeUInt16BE(0, 10);
    return copy;
  };
  const decisions: { name: string; policy: typeof policy; client: string; msg: () => Buffer; want: string }[] = [
    { name: 'listed address, signed', policy, client: '127.0.0.1', msg: () => signed, want: 'allow' },
    { name: 'listed prefix, signed', policy, client: '10.200.0.7', msg: () => signed, want: 'allow' },
    {
      name: 'IPv4-mapped IPv6 of a listed address',
      policy,
      client: '::ffff:127.0.0.1',
      msg: () => signed,
      want: 'allow',
    },
    { name: 'listed IPv6 prefix', policy, client: 'fd00::53', msg: () => signed, want: 'allow' },
    { name: 'unlisted address, signed', policy, client: '127.0.0.2', msg: () => signed, want: 'refuse' },
    { name: 'listed address, unsigned, keys configured', policy, client: '127.0.0.1', msg: unsigned, want: 'refuse' },
    {
      name: 'listed address, bad signature',
      policy,
      client: '127.0.0.1',
      msg: () => flipQuestion(signed),
      want: 'notauth',
    },
    { name: 'no keys configured, unsigned, listed', policy: open, client: '127.0.0.1', msg: unsigned, want: 'allow' },
    { name: 'no keys configured, unlisted', policy: open, client: '192.0.2.1', msg: unsigned, want: 'refuse' },
  ];
  for (const row of decisions) {
    test(`transfer decision: ${row.name}`, () => {
      // The dispatch checks the TSIG once, against the zone's keys, where the parser found it.
      const msg = row.msg();
      const check = checkTsig(msg, (parseQuery(msg) as ParsedQuery).tsigStart, row.policy.keys, signedTime);
      assert.equal(decideTransfer(row.policy, row.client, check).kind, row.want);
    });
  }
});

describe('BIND key files', () => {
  const rows: { name: string; text: string; want: string[] | RegExp }[] = [
    {
      name: 'one key',
      text: `key "xfr.example.org" {\n  algorithm hmac-sha256;\n  secret "${SECRET}";\n};\n`,
      want: [`xfr.example.org. hmac-sha256. ${SECRET}`],
    },
    {
      name: 'two keys, comments, unquoted name',
      text: `# ours\nkey a.key { algorithm hmac-sha512; secret "${SECRET}"; };\n// theirs\nkey "B.Key." { algorithm "hmac-sha256"; secret "${SECRET}"; };`,
      want: [`a.key. hmac-sha512. ${SECRET}`, `b.key. hmac-sha256. ${SECRET}`],
    },
    {
      name: 'a secret holding "//" is kept whole',
      text: `key "k" { algorithm hmac-sha256; secret "${SLASHES}"; }; // ${SLASHES}`,
      want: [`k. hmac-sha256. ${SLASHES}`],
    },
    {
      name: 'a /* */ comment, across lines, hiding a key',
      text: `/* key "old" {\n algorithm hmac-sha1; secret "${SECRET}"; }; */\nkey "k" { algorithm /* in */ hmac-sha256; secret "${SECRET}"; };`,
      want: [`k. hmac-sha256. ${SECRET}`],
    },
    {
      name: 'unknown algorithm',
      text: `key "k" { algorithm hmac-md5; secret "${SECRET}"; };`,
      want: /key "k": algorithm/,
    },
    { name: 'no secret', text: 'key "k" { algorithm hmac-sha256; };', want: /key "k": secret/ },
    {
      name: 'a secret that is not base64',
      text: 'key "k" { algorithm hmac-sha256; secret "not*base64"; };',
      want: /key "k": secret is not base64/,
    },
    {
      name: 'a secret cut short (length not a multiple of 4)',
      text: `key "k" { algorithm hmac-sha256; secret "${SECRET.slice(0, -1)}"; };`,
      want: /key "k": secret is not base64/,
    },
    {
      name: 'a secret split by whitespace',
      text: `key "k" { algorithm hmac-sha256; secret "${SECRET.slice(0, 8)}\n  ${SECRET.slice(8)}"; };`,
      want: [`k. hmac-sha256. ${SECRET}`],
    },
    { name: 'no key at all', text: 'options { };', want: /no key/ },
  ];
  for (const row of rows) {
    test(row.name, () => {
      if (row.want instanceof RegExp) {
        assert.throws(
          () => parseKeyFile(row.text, 'keys.conf'),
          (e: Error) => row.want instanceof RegExp && row.want.test(e.message) && e.message.startsWith('keys.conf'),
        );
      } else {
        assert.deepEqual(
          parseKeyFile(row.text, 'keys.conf').map((k) => `${k.name} ${k.algorithm} ${k.secret.toString('base64')}`),
          row.want,
        );
      }
    });
  }
});
