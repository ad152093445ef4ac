// Table tests of reading one SkyDNS value: field names in any case (as CoreDNS reads them), unknown
// fields ignored, null as absent, and a wrong type an error naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntry, encodeEntry, type DecodeResult } from '../../src/skydns/skydns-entry.ts';

const rows: { name: string; raw: string; want: DecodeResult }[] = [
  { name: 'an address', raw: '{"host":"10.0.0.1"}', want: { ok: true, entry: { host: '10.0.0.1' } } },
  {
    name: 'every field',
    raw: '{"host":"a.example.org","port":53,"priority":10,"weight":5,"text":"t","mail":true,"ttl":30,"targetstrip":1,"group":"g","owner":"o","resource":"service/ns/n"}',
    want: {
      ok: true,
      entry: {
        host: 'a.example.org',
        port: 53,
        priority: 10,
        weight: 5,
        text: 't',
        mail: true,
        ttl: 30,
        targetstrip: 1,
        group: 'g',
        owner: 'o',
        resource: 'service/ns/n',
      },
    },
  },
  {
    name: 'names in any case',
    raw: '{"Host":"10.0.0.1","TTL":60}',
    want: { ok: true, entry: { host: '10.0.0.1', ttl: 60 } },
  },
  {
    name: 'unknown fields ignored',
    raw: '{"host":"10.0.0.1","key":"/x","extra":[1]}',
    want: { ok: true, entry: { host: '10.0.0.1' } },
  },
  { name: 'null is absent', raw: '{"host":"10.0.0.1","ttl":null}', want: { ok: true, entry: { host: '10.0.0.1' } } },
  { name: 'no host nor text decodes (callers decide)', raw: '{"ttl":5}', want: { ok: true, entry: { ttl: 5 } } },
  { name: 'the later of two spellings wins', raw: '{"host":"a","HOST":"b"}', want: { ok: true, entry: { host: 'b' } } },
  { name: 'a later null spelling removes the field', raw: '{"host":"a","HOST":null}', want: { ok: true, entry: {} } },
  {
    name: 'a wrong type under an earlier spelling does not count',
    raw: '{"HOST":5,"host":"a"}',
    want: { ok: true, entry: { host: 'a' } },
  },
  {
    name: 'two wrong fields: the string field is reported, whatever the order',
    raw: '{"port":"x","host":1}',
    want: { ok: false, error: 'field "host" must be a string' },
  },
  {
    name: 'a string port',
    raw: '{"host":"h","port":"53"}',
    want: { ok: false, error: 'field "port" must be an integer' },
  },
  {
    name: 'a fractional ttl',
    raw: '{"host":"h","ttl":1.5}',
    want: { ok: false, error: 'field "ttl" must be an integer' },
  },
  { name: 'a numeric host', raw: '{"Host":1}', want: { ok: false, error: 'field "host" must be a string' } },
  {
    name: 'a string mail',
    raw: '{"host":"h","mail":"yes"}',
    want: { ok: false, error: 'field "mail" must be a boolean' },
  },
  { name: 'an array', raw: '[1]', want: { ok: false, error: 'not a JSON object' } },
  { name: 'null', raw: 'null', want: { ok: false, error: 'not a JSON object' } },
];

for (const row of rows) {
  test(`decodeEntry: ${row.name}`, () => {
    assert.deepEqual(decodeEntry(row.raw), row.want);
  });
}

test('decodeEntry: not JSON names the parser error', () => {
  const got = decodeEntry('{"host":');
  assert.equal(got.ok, false);
  assert.match((got as { error: string }).error, /^not JSON: /);
});

test('encodeEntry then decodeEntry gives the entry back, fields in a fixed order', () => {
  const entry = { ttl: 30, host: '10.0.0.1', owner: 'o' };
  const encoded = encodeEntry(entry);
  assert.equal(encoded, '{"host":"10.0.0.1","ttl":30,"owner":"o"}');
  assert.deepEqual(decodeEntry(encoded), { ok: true, entry });
});
