#!/usr/bin/env node
// The `etcdns` command. In a clone, Node 24 runs the TypeScript sources directly (type
// stripping, no build step); an installed package has no src/ and runs the compiled lib/
// (Node does not strip types under node_modules).
import { existsSync } from 'node:fs';

const source = new URL('../src/runtime/cli.ts', import.meta.url);
const { main } = await import(existsSync(source) ? source.href : '../lib/runtime/cli.js');

// A reader that stops early (`etcdns plan ... | head`) is not an error worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
