// The least a Node process can do per DNS query: receive the datagram, answer it with its own
// bytes (QR set, NOERROR, no records) and send that back. No parsing, no lookup, no cache. Its CPU
// per query in the same flood is the floor under any server built on Node's dgram, etcdns
// included; the distance from etcdns to it is what etcdns's own code costs, the distance from it
// to Knot is what the runtime costs (per-packet system calls and the JavaScript boundary).
// Run as a process of its own (`node bench/dns/node-floor.ts PORT`) so its CPU and affinity are
// measured and set like the other servers'.
import { createSocket } from 'node:dgram';

const port = Number(process.argv[2]);
// Every address here is an IP: no dns.lookup per send (as etcdns's wire-server.ts).
// dgram passes the family as a number (4 or 6), whatever @types/node says.
const udp = createSocket({
  type: 'udp4',
  lookup: (address, family, callback) => callback(null, address, family as unknown as number),
});
udp.on('message', (msg, rinfo) => {
  if (msg.length < 12) return;
  const reply = Buffer.allocUnsafe(msg.length);
  msg.copy(reply);
  reply[2] = (reply[2]! | 0x80) & 0xf9; // QR, not AA, not TC
  reply[3] = reply[3]! & 0xf0; // NOERROR
  udp.send(reply, rinfo.port, rinfo.address);
});
udp.bind(port, '127.0.0.1', () => {
  udp.setRecvBufferSize(4 * 1024 * 1024);
  process.stdout.write('listening\n');
});
process.once('SIGTERM', () => udp.close(() => process.exit(0)));
