// Table tests of the address rules whose output the runtime uses as parsed (no second parser).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostPort, upstream } from '../../src/config/field-rules.ts';
import { problemsOf, parseConfig } from '../../src/config/schema-problems.ts';

const parsed: [string, typeof hostPort | typeof upstream, string, { host: string; port: number }][] = [
  ['listen on one IPv4 address', hostPort, '127.0.0.1:5353', { host: '127.0.0.1', port: 5353 }],
  ['listen on every IPv4 address', hostPort, ':8080', { host: '0.0.0.0', port: 8080 }],
  ['listen on IPv6', hostPort, '[::]:5353', { host: '::', port: 5353 }],
  ['listen on a host name', hostPort, 'localhost:53', { host: 'localhost', port: 53 }],
  ['upstream IPv4 without a port', upstream, '10.0.0.53', { host: '10.0.0.53', port: 53 }],
  ['upstream IPv4 with a port', upstream, '10.0.0.53:5353', { host: '10.0.0.53', port: 5353 }],
  ['upstream IPv6 without a port', upstream, '2001:db8::2', { host: '2001:db8::2', port: 53 }],
  ['upstream IPv6 with a port', upstream, '[fd00::53]:5353', { host: 'fd00::53', port: 5353 }],
];
for (const [name, schema, input, want] of parsed)
  test(`parsed: ${name}`, () => assert.deepEqual(parseConfig(schema, input), want));

const refused: [string, typeof hostPort | typeof upstream, string, RegExp][] = [
  ['listen without a port', hostPort, '127.0.0.1', /^x: must be host:port/],
  ['listen port above 65535', hostPort, ':65536', /^x: must be host:port/],
  ['upstream by name', upstream, 'dns.google', /^x: must be "ip", "ip:port" or "\[ipv6\]:port" \(got "dns\.google"\)/],
  ['upstream port above 65535', upstream, '10.0.0.53:70000', /^x: must be "ip"/],
  ['upstream IPv6 with a port, no brackets', upstream, 'fd00::53:99999', /^x: must be "ip"/],
];
for (const [name, schema, input, want] of refused)
  test(`refused: ${name}`, () => assert.match(problemsOf(schema, input, 'x').join('\n'), want));
