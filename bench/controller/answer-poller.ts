// Asks our DNS server for a name every millisecond or two until it answers the expected address:
// a UDP client in this process (spawning dig per query would cost more than what we measure).
import { createSocket } from 'node:dgram';
import dns2 from 'dns2';

const { Packet } = dns2;

export function answerPoller(port: number) {
  const socket = createSocket('udp4');
  let waiting: { id: number; resolve: (addresses: string[]) => void } | undefined;
  socket.on('message', (msg) => {
    const response = Packet.parse(msg);
    if (waiting && response.header.id === waiting.id) {
      const w = waiting;
      waiting = undefined;
      w.resolve(response.answers.filter((a) => a.type === Packet.TYPE.A).map((a) => a.address ?? ''));
    }
  });
  let id = 1;
  const ask = (name: string) =>
    new Promise<string[]>((resolve) => {
      const query = new Packet();
      query.header.id = id = (id % 65535) + 1;
      query.questions.push({ name, type: Packet.TYPE.A, class: Packet.CLASS.IN } as (typeof query.questions)[number]);
      waiting = { id: query.header.id, resolve };
      // A lost datagram counts as "not yet": the next poll asks again.
      setTimeout(() => {
        if (waiting?.id === query.header.id) {
          waiting = undefined;
          resolve([]);
        }
      }, 200);
      socket.send(query.toBuffer(), port, '127.0.0.1');
    });
  return {
    /** Resolves when `name` answers exactly [ip]; rejects after timeoutMs. */
    async until(name: string, ip: string, timeoutMs: number): Promise<void> {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const got = await ask(name);
        if (got.length === 1 && got[0] === ip) return;
        if (performance.now() > deadline)
          throw new Error(`${name} did not answer ${ip} within ${timeoutMs} ms (last: ${got.join(',')})`);
        await new Promise((r) => setTimeout(r, 1));
      }
    },
    /** The A addresses `name` answers now (none for NXDOMAIN or a lost datagram). */
    addresses: ask,
    close: () => socket.close(),
  };
}
