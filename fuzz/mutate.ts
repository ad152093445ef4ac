// Byte-level mutations of a corpus input, in the spirit of libFuzzer's: bit flips, interesting
// values, inserted, erased, copied and spliced ranges, and the target's dictionary tokens. One to
// four stacked per new input, from a seeded generator so that a run can be repeated.

/** xorshift32: small, fast and reproducible from its seed. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  below(n: number): number {
    return n <= 0 ? 0 : this.next() % n;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

const INTERESTING_8 = [0, 1, 0x3f, 0x40, 0x7f, 0x80, 0xc0, 0xff];
const INTERESTING_16 = [0, 1, 12, 41, 255, 256, 512, 1232, 4096, 0x7fff, 0x8000, 0xffff];

export function mutate(
  input: Buffer,
  rnd: Random,
  corpus: readonly Buffer[],
  dictionary: readonly Buffer[],
  maxLength: number,
): Buffer {
  let data: Buffer = Buffer.from(input);
  const rounds = 1 + rnd.below(4);
  for (let i = 0; i < rounds; i++) data = mutateOnce(data, rnd, corpus, dictionary);
  return data.length > maxLength ? data.subarray(0, maxLength) : data;
}

function mutateOnce(data: Buffer, rnd: Random, corpus: readonly Buffer[], dictionary: readonly Buffer[]): Buffer {
  const at = () => rnd.below(data.length + 1);
  switch (rnd.below(dictionary.length > 0 ? 10 : 8)) {
    case 0: // flip a bit
      if (data.length === 0) return Buffer.from([rnd.below(256)]);
      data[rnd.below(data.length)]! ^= 1 << rnd.below(8);
      return data;
    case 1: // an interesting byte
      if (data.length === 0) return Buffer.from([rnd.pick(INTERESTING_8)]);
      data[rnd.below(data.length)] = rnd.pick(INTERESTING_8);
      return data;
    case 2: {
      // an interesting big-endian 16-bit value (DNS counts, lengths, types)
      if (data.length < 2) return Buffer.concat([data, Buffer.alloc(2)]);
      data.writeUInt16BE(rnd.pick(INTERESTING_16), rnd.below(data.length - 1));
      return data;
    }
    case 3: {
      // insert random bytes
      const p = at();
      const bytes = Buffer.from(Array.from({ length: 1 + rnd.below(8) }, () => rnd.below(256)));
      return Buffer.concat([data.subarray(0, p), bytes, data.subarray(p)]);
    }
    case 4: {
      // erase a range
      if (data.length === 0) return data;
      const p = rnd.below(data.length);
      return Buffer.concat([data.subarray(0, p), data.subarray(p + 1 + rnd.below(Math.min(16, data.length - p)))]);
    }
    case 5: {
      // copy a range of itself elsewhere (repeats labels, fields)
      if (data.length === 0) return data;
      const from = rnd.below(data.length);
      const chunk = data.subarray(from, from + 1 + rnd.below(data.length - from));
      const p = at();
      return Buffer.concat([data.subarray(0, p), chunk, data.subarray(p)]);
    }
    case 6: {
      // splice with another corpus input
      const other = rnd.pick(corpus);
      if (!other || other.length === 0) return data;
      const cut = at();
      return Buffer.concat([data.subarray(0, cut), other.subarray(rnd.below(other.length))]);
    }
    case 7: // truncate
      return data.subarray(0, at());
    case 8: {
      // insert a dictionary token
      const p = at();
      return Buffer.concat([data.subarray(0, p), rnd.pick(dictionary), data.subarray(p)]);
    }
    default: {
      // overwrite with a dictionary token
      const token = rnd.pick(dictionary);
      const p = at();
      return Buffer.concat([data.subarray(0, p), token, data.subarray(Math.min(data.length, p + token.length))]);
    }
  }
}
