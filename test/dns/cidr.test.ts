// Table tests of the address arithmetic behind rewrite rules and of the private-address check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cidrContains, formatAddress, mapAddress, parseAddress, parseCidr } from '../../src/dns/cidr.ts';
import { privateAddressKind } from '../../src/runtime/controller/views/private-address.ts';

const cidr = (text: string) => {
  const c = parseCidr(text);
  if (!c.ok) throw new Error(c.error);
  return c.cidr;
};

test('addresses parse and print canonically', () => {
  const rows: [string, string | undefined][] = [
    ['10.9.176.5', '10.9.176.5'],
    ['::ffff:10.9.176.5', '10.9.176.5'],
    ['2001:DB8::1', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::', 'fe80::'],
    ['64:ff9b::192.0.2.33', '64:ff9b::c000:221'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2:3:4:5:6'],
    ['10.9.176', undefined],
    ['example.org', undefined],
    ['', undefined],
  ];
  for (const [input, want] of rows) {
    const a = parseAddress(input);
    assert.equal(a ? formatAddress(a) : undefined, want, input);
  }
});

test('CIDRs: parsing errors say what a CIDR looks like, host bits are refused with the likely intent', () => {
  const rows: [string, RegExp | undefined][] = [
    ['10.9.176.0/24', undefined],
    ['fd00::/8', undefined],
    ['0.0.0.0/0', undefined],
    ['10.9.176.1/24', /host bits set; did you mean 10\.9\.176\.0\/24/],
    ['10.9.176.0', /not a CIDR/],
    ['10.9.176.0/33', /not a CIDR/],
    ['10.9.176.0/-1', /not a CIDR/],
    ['10.9.176.0/24/1', /not a CIDR/],
    ['fd00::/129', /not a CIDR/],
    ['nonsense/8', /not a CIDR/],
  ];
  for (const [input, error] of rows) {
    const c = parseCidr(input);
    if (error) assert.match(c.ok ? 'ok' : c.error, error, input);
    else assert.ok(c.ok, input);
  }
});

test('CIDR membership is per family', () => {
  const rows: [string, string, boolean][] = [
    ['10.9.176.0/24', '10.9.176.255', true],
    ['10.9.176.0/24', '10.9.177.0', false],
    ['10.0.0.0/8', '::ffff:10.1.2.3', true],
    ['0.0.0.0/0', '2001:db8::1', false],
    ['2001:db8::/32', '2001:db8:ffff::1', true],
    ['2001:db8::/32', '2001:db9::1', false],
  ];
  for (const [net, ip, want] of rows) assert.equal(cidrContains(cidr(net), parseAddress(ip)!), want, `${ip} in ${net}`);
});

test('1:1 mapping keeps the host part and replaces the network', () => {
  const rows: [string, string, string, string][] = [
    ['10.9.176.0/24', '203.0.113.0/24', '10.9.176.213', '203.0.113.213'],
    ['10.9.176.0/24', '203.0.113.0/24', '10.9.176.0', '203.0.113.0'],
    ['10.0.0.0/8', '198.0.0.0/8', '10.1.2.3', '198.1.2.3'],
    ['10.9.176.0/32', '203.0.113.9/32', '10.9.176.0', '203.0.113.9'],
    ['fd00:1::/64', '2001:db8:5::/64', 'fd00:1::abcd', '2001:db8:5::abcd'],
  ];
  for (const [from, to, ip, want] of rows)
    assert.equal(formatAddress(mapAddress(parseAddress(ip)!, cidr(from), cidr(to))), want, `${ip} ${from}->${to}`);
});

test('private addresses are named by kind; public ones are not', () => {
  const rows: [string, RegExp | undefined][] = [
    ['10.9.176.213', /RFC 1918/],
    ['172.16.0.1', /RFC 1918/],
    ['172.31.255.255', /RFC 1918/],
    ['172.32.0.1', undefined],
    ['192.168.1.1', /RFC 1918/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.128.0.1', undefined],
    ['127.0.0.1', /loopback/],
    ['169.254.1.1', /link-local/],
    ['0.1.2.3', /this network/],
    ['::ffff:192.168.0.1', /RFC 1918/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['fd12:3456::1', /ULA/],
    ['fc00::1', /ULA/],
    ['fe80::1', /link-local/],
    ['203.0.113.213', undefined],
    ['8.8.8.8', undefined],
    ['2001:db8::1', undefined],
    ['not-an-ip', undefined],
  ];
  for (const [ip, want] of rows) {
    const kind = privateAddressKind(ip);
    if (want) assert.match(kind ?? 'public', want, ip);
    else assert.equal(kind, undefined, ip);
  }
});
