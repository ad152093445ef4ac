// Optional forwarding of names outside our zones to upstream resolvers, only for clients in the
// configured CIDRs: everyone else gets REFUSED, so the server is never an open resolver.
import { createSocket } from 'node:dgram';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';
import type { HostPort } from '../../config/field-rules.ts';
import type { ForwardConfig } from '../../config/server-config.ts';

const TIMEOUT_MS = 2000;

/** A client-address check over CIDRs ("10.0.0.0/8", "::1/128"); IPv4-mapped clients count as IPv4. */
export function cidrMatcher(cidrs: string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [net, bits] = cidr.split('/');
    const family = isIPv4(net ?? '') ? 'ipv4' : isIPv6(net ?? '') ? 'ipv6' : undefined;
    const prefix = Number(bits);
    const max = family === 'ipv4' ? 32 : 128;
    if (!family || bits === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new Error(`"${cidr}" is not a CIDR such as 10.0.0.0/8 or fd00::/8`);
    }
    list.addSubnet(net!, prefix, family);
  }
  return (address) => {
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4 ?? isIPv4(address)) return list.check(v4 ?? address, 'ipv4');
    return isIPv6(address) && list.check(address, 'ipv6');
  };
}

export class Forwarder {
  readonly allows: (client: string) => boolean;
  private readonly upstreams: readonly HostPort[];

  constructor(config: ForwardConfig) {
    this.upstreams = config.upstreams;
    this.allows = cidrMatcher(config.clientCidrs);
  }

  /** The upstream's answer with the client's ID, or undefined when no upstream answered in time. */
  async forward(msg: Buffer): Promise<Buffer | undefined> {
    for (const upstream of this.upstreams) {
      const answer = await ask(upstream, msg).catch(() => undefined);
      if (answer) return answer;
    }
    return undefined;
  }
}

/** One UDP exchange with a fresh ID and source port (RFC 5452), restored to the client's ID. */
function ask(upstream: HostPort, msg: Buffer): Promise<Buffer | undefined> {
  const query = Buffer.from(msg);
  const id = randomInt(0x10000);
  query.writeUInt16BE(id, 0);
  const socket = createSocket(isIPv6(upstream.host) ? 'udp6' : 'udp4');
  return new Promise((resolve) => {
    const done = (answer: Buffer | undefined) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), TIMEOUT_MS);
    socket.on('error', () => done(undefined));
    socket.on('message', (answer, rinfo) => {
      if (rinfo.address !== upstream.host || answer.length < 12 || answer.readUInt16BE(0) !== id) return;
      const restored = Buffer.from(answer);
      restored[0] = msg[0]!;
      restored[1] = msg[1]!;
      done(restored);
    });
    socket.send(query, upstream.port, upstream.host);
  });
}
