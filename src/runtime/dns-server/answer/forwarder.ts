// Optional forwarding of names outside our zones to upstream resolvers, only for clients in the
// configured CIDRs: everyone else gets REFUSED, so the server is never an open resolver.
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { randomInt } from 'node:crypto';
import type { HostPort } from '../../../config/field-rules.ts';
import type { ForwardConfig } from '../../../config/server-config.ts';
import { cidrMatcher } from '../../../dns/cidr.ts';
import { HEADER_SIZE, idOf, setId } from '../wire/header.ts';

const TIMEOUT_MS = 2000;

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
  setId(query, id);
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
      if (rinfo.address !== upstream.host || answer.length < HEADER_SIZE || idOf(answer) !== id) return;
      const restored = Buffer.from(answer);
      setId(restored, idOf(msg));
      done(restored);
    });
    socket.send(query, upstream.port, upstream.host);
  });
}
