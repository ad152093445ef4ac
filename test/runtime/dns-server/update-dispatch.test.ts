// The start-up of updates (the key file read once, each configured key in it, else the start
// fails naming the field) and what an UPDATE gets before etcd is asked: FORMERR for a message
// that does not parse, REFUSED unsigned, NOTAUTH for a key the file does not hold; each counted.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Etcd3 } from 'etcd3';
import { createLogger } from '../../../src/runtime/shared/log.ts';
import { Registry } from '../../../src/runtime/shared/metrics.ts';
import { setUpUpdates } from '../../../src/runtime/dns-server/update-dispatch.ts';
import { UpdateMetrics } from '../../../src/runtime/dns-server/update/update-metrics.ts';
import { metricSum } from '../../support/metrics-text.ts';
import { tempDir } from '../../support/temp-dir.ts';
import { keyStatement } from '../../support/tsig-key.ts';

const dir = tempDir('update-dispatch');
const keyFile = join(dir, 'update.key');
writeFileSync(keyFile, keyStatement({ name: 'acme', algorithm: 'hmac-sha256', secret: 'c2VjcmV0' }));
/** Never called: each row is answered before etcd is asked. */
const client = {} as Etcd3;
const zones = [{ name: 'example.org' }];

function setUp(update: { keyFile: string; keys: { name: string; suffixes: string[] }[] }) {
  const registry = new Registry();
  const metrics = new UpdateMetrics(registry);
  const dispatch = setUpUpdates({
    config: { update, zones },
    client,
    prefix: '/skydns',
    metrics,
    logger: createLogger('error'),
  })!;
  return { dispatch, registry };
}

// [case, update config, the error naming the field]
const starts: [string, { keyFile: string; keys: { name: string; suffixes: string[] }[] }, RegExp][] = [
  [
    'a key not in the key file',
    { keyFile, keys: [{ name: 'other', suffixes: ['example.org'] }] },
    /update\.keys\[0\]\.name: key "other" is not in update\.keyFile/,
  ],
  [
    'an unreadable key file',
    { keyFile: join(dir, 'missing.key'), keys: [{ name: 'acme', suffixes: ['example.org'] }] },
    /update\.keyFile .*missing\.key: ENOENT/,
  ],
];
for (const [name, update, error] of starts)
  test(`start-up refuses ${name}, naming the field`, () => assert.throws(() => setUp(update), error));

/** An UPDATE for example.org: header, zone section, one TXT add; `truncate` cuts the record. */
function updateMessage(truncate = false): Buffer {
  const header = Buffer.from([0x12, 0x34, 5 << 3, 0, 0, 1, 0, 0, 0, 1, 0, 0]);
  const zone = Buffer.from([7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0, 0, 6, 0, 1]);
  const record = Buffer.from([0xc0, 12, 0, 16, 0, 1, 0, 0, 0, 60, 0, 2, 1, 0x78]);
  return Buffer.concat([header, zone, truncate ? record.subarray(0, 6) : record]);
}

// [case, message, rcode]
const answers: [string, Buffer, string][] = [
  ['a record cut short: FORMERR', updateMessage(true), 'FORMERR'],
  ['unsigned: REFUSED', updateMessage(), 'REFUSED'],
];
for (const [name, msg, rcode] of answers)
  test(`an UPDATE ${name}, counted`, async () => {
    const { dispatch, registry } = setUp({ keyFile, keys: [{ name: 'acme', suffixes: ['example.org'] }] });
    const reply = await dispatch(msg, '127.0.0.1');
    assert.equal(reply.readUInt16BE(0), 0x1234);
    assert.equal((reply[2]! >> 3) & 0x0f, 5, 'opcode UPDATE');
    const codes: Record<string, number> = { FORMERR: 1, REFUSED: 5 };
    assert.equal(reply[3]! & 0x0f, codes[rcode]);
    assert.equal(metricSum(registry.render(), 'etcdns_dns_updates_total', `result="${rcode}"`), 1);
  });
