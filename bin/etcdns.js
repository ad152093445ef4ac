#!/usr/bin/env node
// The `etcdns` command. Node 24 runs the TypeScript sources directly (type stripping).
import { main } from '../src/runtime/cli.ts';

// A reader that stops early (`etcdns plan ... | head`) is not an error worth a stack trace.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
