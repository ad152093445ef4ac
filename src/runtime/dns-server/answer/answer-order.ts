// The order of the A and AAAA records in an answer (CoreDNS's loadbalance, BIND's rrset-order
// cyclic and sortlist): rotated one step per answer sent (`round-robin`), then the records in
// the client's own networks of the `prefer` list first. Answers stay cached as bytes: the layout
// of an answer's address RRsets is found once when it is cached, and each send moves its records
// in the copy it sends anyway (wire/address-rrsets.ts), so no answer is encoded again.
import { MAX_PREFER } from '../../../config/server-config.ts';
import { cidrContains, parseAddress, parseCidr, type Address, type Cidr } from '../../../dns/cidr.ts';
import { addressOf, addressRrsets, writeOrder, type AddressRrset } from '../wire/address-rrsets.ts';

export type Rotation = 'off' | 'round-robin';

/** What to order in one cached answer. */
export interface OrderLayout {
  rrsets: AddressRrset[];
  /** Per RRset, per record: the `prefer` networks its address is in, as bits (bit i: network i). */
  networks: number[][];
  /** The next answer's rotation step; starts at random, so an answer cached afresh is not biased to one order. */
  turn: number;
}

/** A record in none of the client's `prefer` networks. */
const UNPREFERRED = MAX_PREFER;

/**
 * The order of `count` records, as indices into the stored order: rotated by `turn` (record
 * `turn mod count` first), then stably by rank (lower first; the rank of a record is the first
 * `prefer` network it shares with the client, UNPREFERRED when none).
 */
export function recordOrder(count: number, turn: number, ranks: readonly number[]): number[] {
  const order = new Array<number>(count);
  for (let i = 0; i < count; i++) order[i] = (turn + i) % count;
  let mixed = false;
  for (let i = 1; i < count && !mixed; i++) mixed = ranks[i] !== ranks[0];
  return mixed ? order.sort((a, b) => ranks[a]! - ranks[b]!) : order;
}

/** The rank of a record in the bits it shares with the client: the lowest shared network. */
function rank(shared: number): number {
  return shared === 0 ? UNPREFERRED : 31 - Math.clz32(shared & -shared);
}

function addressFromBytes(bytes: Buffer): Address {
  let value = 0n;
  for (const b of bytes) value = (value << 8n) | BigInt(b);
  return { family: bytes.length === 4 ? 4 : 6, value };
}

/** Clients remembered with their networks; beyond this the memory starts again (resolvers are few). */
const CLIENTS_KEPT = 4096;

export class AnswerOrder {
  private readonly rotates: boolean;
  private readonly prefer: Cidr[];
  private readonly clients = new Map<string, number>();

  /** `prefer`: CIDRs the config validated (host bits clear), at most MAX_PREFER. */
  constructor(rotation: Rotation, prefer: readonly string[]) {
    this.rotates = rotation === 'round-robin';
    this.prefer = prefer.map((text) => {
      const parsed = parseCidr(text);
      if (!parsed.ok) throw new Error(parsed.error);
      return parsed.cidr;
    });
    if (this.prefer.length > MAX_PREFER) throw new Error(`prefer lists more than ${MAX_PREFER} networks`);
  }

  /** Whether any answer is reordered: else the server leaves this out entirely. */
  get active(): boolean {
    return this.rotates || this.prefer.length > 0;
  }

  /** What this answer has to order, or undefined when nothing in it ever moves. Once per cached answer. */
  layoutOf(encoded: Buffer): OrderLayout | undefined {
    const rrsets = addressRrsets(encoded);
    if (rrsets.length === 0) return undefined;
    const networks = rrsets.map((rrset) =>
      rrset.offsets.map((_, i) => this.networksOf(addressFromBytes(addressOf(encoded, rrset, i)))),
    );
    // Without rotation, an answer none of whose records is in a `prefer` network never moves.
    if (!this.rotates && networks.every((rs) => rs.every((n) => n === 0))) return undefined;
    return { rrsets, networks, turn: Math.floor(Math.random() * 0x3fffffff) };
  }

  /** Puts the records of `out` (a copy of `template`) in this client's order; one rotation step per call. */
  apply(out: Buffer, template: Buffer, layout: OrderLayout, client: string): void {
    const turn = this.rotates ? layout.turn : 0;
    if (this.rotates) layout.turn = (turn + 1) & 0x3fffffff;
    const mine = this.prefer.length > 0 ? this.clientNetworks(client) : 0;
    for (let r = 0; r < layout.rrsets.length; r++) {
      const rrset = layout.rrsets[r]!;
      const count = rrset.offsets.length;
      if (mine === 0 && turn % count === 0) continue;
      const networks = layout.networks[r]!;
      const ranks = new Array<number>(count);
      for (let i = 0; i < count; i++) ranks[i] = rank(networks[i]! & mine);
      writeOrder(out, template, rrset, recordOrder(count, turn, ranks));
    }
  }

  /** The `prefer` networks an address is in, as bits. */
  private networksOf(address: Address | undefined): number {
    if (address === undefined) return 0;
    let bits = 0;
    for (let i = 0; i < this.prefer.length; i++) if (cidrContains(this.prefer[i]!, address)) bits |= 1 << i;
    return bits;
  }

  /** The client's `prefer` networks (its source address), remembered: parsing an address per query is dear. */
  private clientNetworks(client: string): number {
    let bits = this.clients.get(client);
    if (bits !== undefined) return bits;
    bits = this.networksOf(parseAddress(client));
    if (this.clients.size >= CLIENTS_KEPT) this.clients.clear();
    this.clients.set(client, bits);
    return bits;
  }
}
