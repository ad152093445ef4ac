// The DS records a signed zone's parent needs, read from the DNSSEC signer (Knot, docs/dnssec.md)
// as it publishes them: its CDS RRset (RFC 7344; the signer's `cds-cdnskey-publish: always`),
// whose records are in the DS's format (RFC 4034 5.1). Asked over UDP at the signer's Service.
import { createSocket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { Packet, type Question } from 'dns2';

const CDS = 59;
const CLASS_IN = 1;

/** A CDS record's data as the DS line for the parent (RFC 4034 5.3), e.g. "example.org. IN DS 2371 13 2 1F98...". */
export function dsLine(zone: string, rdata: Buffer): string {
  const digest = rdata.subarray(4).toString('hex').toUpperCase();
  return `${zone.replace(/\.?$/, '.')} IN DS ${rdata.readUInt16BE(0)} ${rdata[2]} ${rdata[3]} ${digest}`;
}

/** The zone's CDS records at `address`:`port` as DS lines; none while the zone is not signed yet. */
export async function readDs(address: string, port: number, zone: string, timeoutMs: number): Promise<string[]> {
  const query = new Packet();
  query.header.id = randomInt(0x10000);
  query.questions.push({ name: zone.replace(/\.$/, ''), type: CDS, class: CLASS_IN } as Question);
  const socket = createSocket(isIPv6(address) ? 'udp6' : 'udp4');
  try {
    const reply = await new Promise<Packet>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no answer from ${address}:${port} in ${timeoutMs} ms`)),
        timeoutMs,
      );
      socket.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      socket.on('message', (msg, from) => {
        if (from.port !== port || msg.length < 2 || msg.readUInt16BE(0) !== query.header.id) return;
        clearTimeout(timer);
        try {
          resolve(Packet.parse(msg));
        } catch (e) {
          reject(e as Error);
        }
      });
      socket.send(query.toBuffer(), port, address);
    });
    if (reply.header.rcode !== 0) throw new Error(`${zone}: rcode ${reply.header.rcode} from ${address}:${port}`);
    return reply.answers
      .filter((a) => a.type === CDS && Buffer.isBuffer((a as { data?: unknown }).data))
      .map((a) => dsLine(zone, (a as unknown as { data: Buffer }).data))
      .sort();
  } finally {
    socket.close();
  }
}
