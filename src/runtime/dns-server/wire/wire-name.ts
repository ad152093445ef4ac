// A domain name read from a message's bytes (RFC 1035 4.1.4: compression pointers followed), for
// the readers that need the name itself (TSIG's key and algorithm, an UPDATE's records) rather
// than the query parser's hash of it.

/** A name at `off`, lower-cased and absolute ("." for the root), its label count, and the offset after it in place. Throws when malformed. */
export function readName(msg: Buffer, off: number): { name: string; labels: number; end: number } {
  const labels: string[] = [];
  let end = -1;
  for (let hops = 0; hops < 128; hops++) {
    if (off >= msg.length) throw new Error('name runs past the message');
    const len = msg[off]!;
    if (len === 0) {
      const name = labels.length ? `${labels.join('.')}.`.toLowerCase() : '.';
      return { name, labels: labels.length, end: end < 0 ? off + 1 : end };
    }
    if ((len & 0xc0) === 0xc0) {
      if (end < 0) end = off + 2;
      off = msg.readUInt16BE(off) & 0x3fff;
      continue;
    }
    if (off + 1 + len > msg.length) throw new Error('label runs past the message');
    labels.push(msg.toString('latin1', off + 1, off + 1 + len));
    off += 1 + len;
  }
  throw new Error('name compression loop');
}
