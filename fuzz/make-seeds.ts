// Writes the seed corpus (run once; the files are committed): real queries as dig sends them,
// captured on a loopback socket; SkyDNS values as external-dns, CoreDNS's docs and etcdns write
// them; annotation values; and the config files the constructs render for each environment.
import { execFile } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { corpusDir, FUZZ_DIR, saveInput } from './corpus-files.ts';

const run = promisify(execFile);

async function digQueries(): Promise<void> {
  const socket = createSocket('udp4');
  const captured: Buffer[] = [];
  socket.on('message', (msg) => captured.push(Buffer.from(msg)));
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', r));
  const port = socket.address().port;
  const queries = [
    ['www.example.org', 'A'],
    ['www.example.org', 'AAAA', '+dnssec'],
    ['example.org', 'SOA', '+noedns'],
    ['_http._tcp.example.org', 'SRV', '+bufsize=512'],
    ['example.org', 'TXT', '+nsid'],
    ['example.org', 'ANY', '+cookie'],
    ['-x', '10.9.176.5'],
    ['-x', '2001:db8::1'],
    ['a.very.long.name.with.many.labels.in.the.example.org', 'CNAME', '+edns=1'],
    ['Mixed.CASE.Example.ORG', 'MX', '+subnet=10.1.0.0/16'],
  ];
  for (const q of queries)
    await run('dig', ['@127.0.0.1', '-p', String(port), '+tries=1', '+time=1', ...q]).catch(() => undefined);
  socket.close();
  for (const packet of captured) saveInput(corpusDir('dns-query'), packet);
}

function skydnsValues(): void {
  for (const value of [
    '{"host":"10.9.176.80","ttl":300}',
    '{"host":"2001:db8::80"}',
    '{"host":"backend.example.net","ttl":60}',
    '{"host":"10.0.0.1","port":8443,"priority":10,"weight":100}',
    '{"text":"\\"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/web\\""}',
    '{"host":"mail.example.org","mail":true,"priority":10}',
    '{"host":"10.0.0.2","targetstrip":1,"group":"g1"}',
    '{"Host":"10.0.0.3","TTL":30,"owner":"etcdns","resource":"service/default/web"}',
  ])
    saveInput(corpusDir('skydns-entry'), Buffer.from(value));
}

function annotationValues(): void {
  // First line: the Service type byte; then hostname, internal-hostname, ttl, target, access,
  // endpoints-type, controller.
  for (const lines of [
    ['\x00', 'web.example.org', '', '300'],
    ['\x01', 'web.example.org,api.example.org', 'web.internal.example.org', '60', '', 'private'],
    ['\x02', '*.apps.example.org', '', '', '192.0.2.1,2001:db8::1', 'public', 'NodeExternalIP'],
    ['\x03backend.example.net', 'alias.example.org', '', '3600', '', '', '', 'dns-controller'],
  ])
    saveInput(corpusDir('annotations'), Buffer.from(lines.join('\n')));
}

function dnsEndpoints(): void {
  // One endpoint per paragraph: dnsName, recordType, recordTTL, targets.
  for (const paragraphs of [
    [['static.example.org', 'A', '300', '192.0.2.10', '192.0.2.11']],
    [
      ['example.org', 'MX', '', '10 mail.example.org', '20 backup.example.org.'],
      ['example.org', 'TXT', '', 'v=spf1 -all'],
    ],
    [
      ['_sip._tcp.example.org', 'SRV', '60', '10 60 5060 sip.example.org'],
      ['sub.example.org', 'NS', '', 'ns1.other.net'],
    ],
    [
      ['10.176.9.10.in-addr.arpa', 'PTR', '', 'host.example.org'],
      ['www.example.org', 'CNAME', '', 'web.example.net.'],
    ],
    [
      ['Caps.Example.org', 'AAAA', '0', '2001:DB8::1'],
      ['bad.example.org', 'NAPTR', '', '100 10 "u" "E2U+sip" "!^.*$!x!" .'],
    ],
  ])
    saveInput(corpusDir('dns-endpoint'), Buffer.from(paragraphs.map((p) => p.join('\n')).join('\n\n')));
}

function configFiles(): void {
  const dist = join(FUZZ_DIR, '..', 'dist');
  for (const env of readdirSync(dist))
    for (const file of readdirSync(join(dist, env)).filter((f) => f.startsWith('configmap-'))) {
      const cm = load(readFileSync(join(dist, env, file), 'utf8')) as { data?: Record<string, string> };
      const json = cm.data?.['config.json'];
      if (!json) continue;
      // First byte: even for the server's schema, odd for the controller's.
      saveInput(
        corpusDir('config'),
        Buffer.concat([Buffer.from([file.includes('controller') ? 1 : 0]), Buffer.from(json)]),
      );
    }
}

await digQueries();
skydnsValues();
annotationValues();
dnsEndpoints();
configFiles();
