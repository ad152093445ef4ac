// A full load's large range pages, read past etcd3's decoding: the gRPC reply stays bytes, walked
// key by key. etcd3's client decodes a whole page into an object per key (two Buffers, four
// 64-bit numbers as strings) before any of it is applied, so each page's objects outlived
// young-generation collections and were promoted: in a profile of a 1,000,000-name load
// (2026-11-27) that decoding took 1.4 s, and collections fell from 3.9 to 2.4 s without it. The
// call goes through etcd3's connection pool as etcd3's own calls do (host choice, TLS, auth
// metadata, its call options); the pool is internal to etcd3 (pinned in package.json), so the
// store's tests against a real etcd are what keep this path honest.
import type { Etcd3, ICallable, IRangeRequest } from 'etcd3';
import protobuf from 'protobufjs/minimal.js';

export interface RangePageRequest {
  start: Buffer;
  end: Buffer;
  limit: number;
  revision: string;
}

/** Receives each key of a page: its text, its value as a view of the reply, its mod revision. */
export type KeyVisitor = (key: string, value: Uint8Array, modRevision: number) => void;

/** etcd3's pool, typed as its RPC clients see it; `range` carries the method's path and serializer. */
type Pool = ICallable<unknown>;
interface RangeMethod {
  path: string;
  requestSerialize: (request: IRangeRequest) => Buffer;
}

/** The page's reply as bytes. */
export function fetchRangePage(client: Etcd3, request: RangePageRequest): Promise<Buffer> {
  const pool = (client as unknown as { pool: Pool }).pool;
  const message: IRangeRequest = {
    key: request.start,
    range_end: request.end,
    limit: request.limit,
    revision: request.revision,
  };
  const factory = pool.callOptionsFactory;
  const options =
    typeof factory === 'function'
      ? factory({ service: 'KV', method: 'range', params: message, isStream: false })
      : (factory ?? {});
  return pool.withConnection('KV', ({ client: grpc, metadata }) => {
    const { path, requestSerialize } = (grpc as unknown as { range: RangeMethod }).range;
    return new Promise<Buffer>((resolve, reject) => {
      grpc.makeUnaryRequest(
        path,
        requestSerialize,
        (bytes: Buffer) => bytes,
        message,
        metadata,
        options,
        (e, reply) => (e ? reject(e) : resolve(reply!)),
      );
    });
  });
}

// Field tags (number << 3 | wire type) of etcd's RangeResponse and mvccpb.KeyValue.
const KVS = (2 << 3) | 2;
const MORE = (3 << 3) | 0;
const KEY = (1 << 3) | 2;
const MOD_REVISION = (3 << 3) | 0;
const VALUE = (5 << 3) | 2;

/** One reply, visited a slice of keys at a time (the caller lets the event loop turn in between). */
export class RangePage {
  /** More keys follow the page in the range. */
  readonly more: boolean;
  /** The page's last key, where the next page starts after; undefined for an empty page. */
  readonly lastKey: Buffer | undefined;
  private readonly reply: Buffer;
  private readonly reader: protobuf.Reader;
  /** Where the current KeyValue's key and value lie, and its mod revision. */
  private keyStart = 0;
  private keyEnd = 0;
  private valueStart = 0;
  private valueEnd = 0;
  private modRevision = 0;

  /** Skims the reply first: the next page's request needs its last key before this one is applied. */
  constructor(reply: Buffer) {
    this.reply = reply;
    this.reader = protobuf.Reader.create(reply);
    const reader = this.reader;
    let more = false;
    let last = -1;
    let lastEnd = 0;
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      if (tag === MORE) more = reader.bool();
      else if (tag !== KVS) reader.skipType(tag & 7);
      else {
        const length = reader.uint32();
        last = reader.pos;
        reader.skip(length);
        lastEnd = reader.pos;
      }
    }
    this.more = more;
    if (last >= 0) {
      reader.pos = last;
      this.readKeyValue(lastEnd);
      this.lastKey = reply.subarray(this.keyStart, this.keyEnd);
    }
    reader.pos = 0;
  }

  /** Visits up to `count` more keys, in order; false once the page is done. */
  visit(count: number, visitor: KeyVisitor): boolean {
    const { reader, reply } = this;
    for (let visited = 0; visited < count && reader.pos < reader.len;) {
      const tag = reader.uint32();
      if (tag !== KVS) {
        reader.skipType(tag & 7);
        continue;
      }
      this.readKeyValue(reader.uint32() + reader.pos);
      visitor(
        reply.toString('utf8', this.keyStart, this.keyEnd),
        reply.subarray(this.valueStart, this.valueEnd),
        this.modRevision,
      );
      visited += 1;
    }
    return reader.pos < reader.len;
  }

  private readKeyValue(end: number): void {
    const reader = this.reader;
    this.keyStart = this.keyEnd = this.valueStart = this.valueEnd = this.modRevision = 0;
    while (reader.pos < end) {
      const field = reader.uint32();
      if (field === KEY || field === VALUE) {
        const length = reader.uint32();
        const start = reader.pos;
        reader.skip(length);
        if (field === KEY) {
          this.keyStart = start;
          this.keyEnd = reader.pos;
        } else {
          this.valueStart = start;
          this.valueEnd = reader.pos;
        }
      } else if (field === MOD_REVISION) {
        const long = reader.int64();
        this.modRevision = long.high * 2 ** 32 + (long.low >>> 0);
      } else reader.skipType(field & 7);
    }
  }
}
