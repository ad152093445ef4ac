// The records of a name as an UPDATE compares them (RFC 2136 2.4.2, 2.5.4): a type and the text of
// its rdata, from a message's bytes or from a stored SkyDNS entry by the layout's one rule of what
// an entry gives (src/skydns/entry-types.ts). TTLs are not compared. Types whose rdata the layout
// makes up (an SRV's weights, the target made from a key) have no value: they exist, and match no
// value-dependent prerequisite.
import { canonicalName } from '../../../dns/dns-name.ts';
import { givesSrv, nameHostType } from '../../../skydns/entry-types.ts';
import { classifyHost } from '../../../skydns/host-address.ts';
import type { SkyDnsEntry } from '../../../skydns/skydns-entry.ts';
import { splitText } from '../../../skydns/txt-strings.ts';
import { TYPE } from '../wire/dns-constants.ts';
import { readName } from '../wire/wire-name.ts';

export interface NameRecord {
  type: number;
  /** The rdata as text; undefined where the layout makes it up. */
  value: string | undefined;
}

/** TXT character-strings as one comparable text (bytes exact). */
const txtValue = (strings: readonly Buffer[]) => strings.map((s) => s.toString('hex')).join(' ');

/** A TXT rdata's character-strings, or undefined when malformed. */
export function txtStrings(rdata: Buffer): Buffer[] | undefined {
  const out: Buffer[] = [];
  for (let off = 0; off < rdata.length;) {
    const length = rdata[off]!;
    if (off + 1 + length > rdata.length) return undefined;
    out.push(rdata.subarray(off + 1, off + 1 + length));
    off += 1 + length;
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The SkyDNS `text` that answers exactly these character-strings, or undefined when none does:
 * the answers cut a text into 255-byte pieces, so only strings that cut gives back are kept
 * (one string of up to 255 bytes, or 255-byte pieces and a last one), and only UTF-8.
 */
export function textOf(strings: readonly Buffer[]): string | undefined {
  const joined = Buffer.concat(strings);
  const text = joined.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(joined)) return undefined;
  const back = splitText(text);
  return back.length === strings.length && back.every((b, i) => b.equals(strings[i]!)) ? text : undefined;
}

/** All eight groups, uncompressed, as classifyHost spells a stored AAAA host. */
function ipv6Text(bytes: Buffer): string {
  return Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16)).join(':');
}

/** The value of a record from a message (rdata at `rdataStart`), undefined for types not compared or malformed rdata. */
export function rdataValue(type: number, msg: Buffer, rdata: Buffer, rdataStart: number): string | undefined {
  try {
    switch (type) {
      case TYPE.A:
        return rdata.length === 4 ? [...rdata].join('.') : undefined;
      case TYPE.AAAA:
        return rdata.length === 16 ? ipv6Text(rdata) : undefined;
      case TYPE.TXT: {
        const strings = txtStrings(rdata);
        return strings ? txtValue(strings) : undefined;
      }
      case TYPE.CNAME:
      case TYPE.PTR:
      case TYPE.NS:
        return readName(msg, rdataStart).name;
      case TYPE.MX:
        return `${rdata.readUInt16BE(0)} ${readName(msg, rdataStart + 2).name}`;
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/** The value of a TXT record of `text` as stored (what a deletion by value matches). */
const storedTextValue = (text: string) => txtValue(splitText(text));

/** The records a stored entry gives at `name` (`nameServer`: it sits under the name's dns/ns/). */
export function entryRecords(name: string, entry: SkyDnsEntry, apex: string, nameServer: boolean): NameRecord[] {
  if (nameServer) return entry.host === undefined ? [] : [{ type: TYPE.NS, value: canonicalName(entry.host) }];
  if (entry.host === undefined)
    return entry.text === undefined ? [] : [{ type: TYPE.TXT, value: storedTextValue(entry.text) }];
  const host = classifyHost(entry.host);
  if (host.kind !== 'name') {
    const records: NameRecord[] = [{ type: TYPE[host.kind], value: host.address }];
    if (entry.mail) records.push({ type: TYPE.MX, value: undefined });
    if (givesSrv(name, entry)) records.push({ type: TYPE.SRV, value: undefined });
    return records;
  }
  const target = canonicalName(entry.host);
  switch (nameHostType(name, entry, apex)) {
    case 'CNAME':
      return [{ type: TYPE.CNAME, value: target }];
    case 'PTR':
      return [{ type: TYPE.PTR, value: target }];
    case 'MX':
      return [{ type: TYPE.MX, value: `${entry.priority || 10} ${target}` }];
    case 'SRV':
      return [{ type: TYPE.SRV, value: undefined }];
    default:
      return [];
  }
}
