#!/usr/bin/env node
// The `etcdns` command. Node 24 runs the TypeScript sources directly (type stripping).
import { main } from '../src/runtime/cli.ts';

process.exitCode = await main(process.argv.slice(2));
