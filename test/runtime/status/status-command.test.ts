// `etcdns status`'s arguments, one row each: what a good line selects, and why a bad one is
// refused (the command exits 2 with the reason before any request).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStatusArgs } from '../../../src/runtime/status/status-command.ts';

const DEFAULTS = { namespace: 'etcdns', name: 'etcdns', kubeconfig: undefined };

// [case, arguments, the options, or a pattern of the error]
const rows: [string, string[], ReturnType<typeof parseStatusArgs> | RegExp][] = [
  ['no arguments: the default stack', [], DEFAULTS],
  ['--help', ['--help'], 'help'],
  ['a stack by name', ['--namespace', 'dns', '--name', 'edge'], { ...DEFAULTS, namespace: 'dns', name: 'edge' }],
  ['a bad stack name', ['--name', 'Edge_1'], /^--name: must be a Kubernetes name/],
  ['--explain a name', ['--explain', 'www.example.org'], { ...DEFAULTS, explain: 'www.example.org' }],
  ['--explain an absolute name', ['--explain', 'WWW.Example.org.'], { ...DEFAULTS, explain: 'WWW.Example.org.' }],
  [
    '--explain with --name: the name explained, the stack named',
    ['--name', 'edge', '--explain', 'api.example.org'],
    { ...DEFAULTS, name: 'edge', explain: 'api.example.org' },
  ],
  [
    '--explain as asked from a client',
    ['--explain', 'www.example.org', '--client', '2001:db8::7'],
    { ...DEFAULTS, explain: 'www.example.org', client: '2001:db8::7' },
  ],
  [
    '--explain a name with an empty label',
    ['--explain', 'a..example.org'],
    /^--explain: the name "a\.\.example\.org" has an empty label/,
  ],
  [
    '--explain a name with a bad character',
    ['--explain', 'bad name!.example.org'],
    /^--explain: the name "bad name!\.example\.org" has/,
  ],
  ['--explain an empty name', ['--explain', ''], /^--explain: the name "" is empty/],
  ['--explain without its value', ['--explain'], /argument missing/],
  ['--explain followed by another option', ['--explain', '--name', 'edge'], /argument is ambiguous/],
  ['--client without --explain', ['--client', '192.0.2.7'], /^--client: only with --explain/],
  ['--client not an address', ['--explain', 'www.example.org', '--client', 'dc1'], /^--client: must be an IP address/],
  ['an unknown option', ['--zone', 'example.org'], /Unknown option '--zone'/],
];

for (const [situation, args, expected] of rows)
  test(`status arguments: ${situation}`, () => {
    if (expected instanceof RegExp) assert.throws(() => parseStatusArgs(args), { message: expected });
    else assert.deepEqual(parseStatusArgs(args), expected);
  });
