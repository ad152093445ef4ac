// The `etcdns` command: one binary, one subcommand per role. Each subcommand lives next to its
// component and is loaded only when asked for, so `etcdns server` never loads the Kubernetes client.
import { readFileSync } from 'node:fs';

export interface Subcommand {
  summary: string;
  /** Runs the subcommand; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

const SUBCOMMANDS: Record<string, () => Promise<Subcommand>> = {
  controller: async () => (await import('./controller/controller-command.ts')).default,
  plan: async () => (await import('./controller/plan-command.ts')).default,
  server: async () => (await import('./dns-server/main.ts')).serverCommand,
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function usage(): Promise<string> {
  const lines = ['Usage: etcdns <command> [options]', '', 'Commands:'];
  for (const [name, load] of Object.entries(SUBCOMMANDS)) lines.push(`  ${name.padEnd(12)}${(await load()).summary}`);
  lines.push(`  ${'version'.padEnd(12)}Print the version`);
  lines.push('', 'Run "etcdns <command> --help" for the options of a command.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${await usage()}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'version' || command === '--version') {
    process.stdout.write(`etcdns ${version()}\n`);
    return 0;
  }
  const load = SUBCOMMANDS[command];
  if (!load) {
    process.stderr.write(`etcdns: unknown command "${command}"\n\n${await usage()}\n`);
    return 2;
  }
  return (await load()).run(rest);
}
