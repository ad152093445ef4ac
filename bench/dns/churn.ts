// Record changes while dnsperf runs: a steady stream of etcd writes, each giving a name a fresh
// address, to names nobody queries ("other") or to names the query file asks for ("queried").
// Probed, each write is followed by a probe that asks the server for the name every millisecond
// until the new address is answered: the write-to-answer delay ("freshness") under that load.
// Unprobed, only the writes run: the flood's QPS under change (the probes' timer and queries cost
// the client's core as much as the writes do), and the control, a server that does not read etcd
// flooded under the same writes (on a small machine etcd and the writer take CPU from it too).
import { createSocket } from 'node:dgram';
import type { Etcd3 } from 'etcd3';
import { Packet } from 'dns2';
import { nameToKey } from '../../src/skydns/skydns-key.ts';
import { encodeEntry } from '../../src/skydns/skydns-entry.ts';
import type { RecordSet } from './record-set.ts';

export const CHURN_TARGETS = ['other', 'queried'] as const;
export type ChurnTarget = (typeof CHURN_TARGETS)[number];

/** Names that nobody queries rotate over this many slots. */
const OTHER_SLOTS = 100;
/** A probe that has not seen its answer by then counts as this long (and as not fresh). */
const PROBE_TIMEOUT_MS = 2000;

export interface ChurnWrite {
  name: string;
  key: string;
  value: string;
  address: string;
}

/**
 * The n-th write of a run, with an address in 10.250.0.0/15 that no earlier write of the run used:
 * an "other" name (churn-<slot>, outside the query file), or a "churn" entry below a queried name
 * (the name answers its own addresses plus that one; its answer changes with every write).
 */
export function churnWrite(set: RecordSet, prefix: string, target: ChurnTarget, n: number): ChurnWrite {
  const address = `10.${250 + ((n >> 16) & 1)}.${(n >> 8) & 255}.${n & 255}`;
  if (target === 'other') {
    const name = `churn-${n % OTHER_SLOTS}.${set.zone}`;
    return { name, key: nameToKey(name, prefix), value: encodeEntry({ host: address }), address };
  }
  const name = set.names[(n * 7919) % set.names.length]!.name;
  return { name, key: `${nameToKey(name, prefix)}/churn`, value: encodeEntry({ host: address }), address };
}

export interface ChurnResult {
  writes: number;
  /** Write acknowledged by etcd to the new address answered, per write, ms (none when not probed). */
  freshnessMs: number[];
  /** Probes that never saw their address within the timeout. */
  stale: number;
}

function query(name: string, id: number): Buffer {
  const p = new Packet();
  p.header = new Packet.Header({ id });
  p.questions = [{ name, type: Packet.TYPE.A, class: Packet.CLASS.IN } as Packet['questions'][number]];
  return p.toBuffer();
}

/**
 * Whether an answer holds the address: its four bytes as the data of an A record (RDLENGTH 4 then
 * the address) after the question. A byte search, not a parse: the probes run on the same two
 * cores as the flood, so they must cost next to nothing.
 */
export function answersAddress(msg: Buffer, address: string, questionEnd: number): boolean {
  const rdata = Buffer.from([0, 4, ...address.split('.').map(Number)]);
  return msg.readUInt16BE(6) > 0 && msg.indexOf(rdata, questionEnd) >= 0;
}

interface Probe {
  write: ChurnWrite;
  packet: Buffer;
  start: number;
  done: (ms: number) => void;
}

/**
 * Writes `ratePerSecond` changes for `seconds`; resolves when the last probe ends. With
 * `probe: false` only the writes run (the control: a server that does not read etcd flooded while
 * etcd and this process do the same work).
 */
export async function runChurn(o: {
  client: Etcd3;
  set: RecordSet;
  prefix: string;
  target: ChurnTarget;
  ratePerSecond: number;
  seconds: number;
  port: number;
  probe: boolean;
}): Promise<ChurnResult> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const waiting = new Map<number, Probe>();
  socket.on('message', (msg) => {
    const p = waiting.get(msg.readUInt16BE(0));
    if (p && answersAddress(msg, p.write.address, p.packet.length)) p.done(performance.now() - p.start);
  });
  // One timer for every open probe, running only while one is open (pinned, this process shares
  // dnsperf's core): each asks again every millisecond until answered.
  let timer: NodeJS.Timeout | undefined;
  const resend = () => {
    const now = performance.now();
    for (const p of waiting.values()) {
      if (now - p.start > PROBE_TIMEOUT_MS) p.done(PROBE_TIMEOUT_MS);
      else socket.send(p.packet, o.port, '127.0.0.1');
    }
  };
  let nextId = 0;

  const probe = (write: ChurnWrite): Promise<number> =>
    new Promise((resolve) => {
      const id = nextId++ & 0xffff;
      const packet = query(write.name, id);
      waiting.set(id, {
        write,
        packet,
        start: performance.now(),
        done: (ms) => {
          waiting.delete(id);
          if (waiting.size === 0) {
            clearInterval(timer);
            timer = undefined;
          }
          resolve(ms);
        },
      });
      timer ??= setInterval(resend, 1);
      socket.send(packet, o.port, '127.0.0.1');
    });

  const total = o.ratePerSecond * o.seconds;
  const probes: Promise<number | undefined>[] = [];
  const started = performance.now();
  for (let n = 0; n < total; n++) {
    // Paced by the clock, not by the writes: a slow etcd does not lower the rate asked for.
    const due = started + (n * 1000) / o.ratePerSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const write = churnWrite(o.set, o.prefix, o.target, n);
    probes.push(
      o.client
        .put(write.key)
        .value(write.value)
        .exec()
        .then(() => (o.probe ? probe(write) : undefined)),
    );
  }
  const freshnessMs = (await Promise.all(probes)).filter((ms) => ms !== undefined);
  socket.close();
  return { writes: total, freshnessMs, stale: freshnessMs.filter((ms) => ms >= PROBE_TIMEOUT_MS).length };
}
