// The `etcdns` command: one binary, one subcommand per role. Each subcommand lives next to its
// component and is loaded only when asked for, so `etcdns server` never loads the Kubernetes client.
import { VERSION } from '../version.ts';
import type { Subcommand } from './shared/subcommand.ts';

const SUBCOMMANDS: Record<string, { summary: string; load: () => Promise<Subcommand> }> = {
  controller: {
    summary:
      'Publish the records of what external-dns reads (Services, Ingresses, routes, Traefik, Istio, nodes, pods, DNSEndpoints, ...) into etcd',
    load: async () => (await import('./controller/controller-command.ts')).default,
  },
  'etcd-member': {
    summary: 'Prepare an etcd member before etcd starts: bootstrap, join, or replace a lost member',
    load: async () => (await import('./etcd-member/etcd-member-command.ts')).default,
  },
  'etcd-roles': {
    summary: 'Give etcd the roles and users of a stack: each component only its own key prefixes',
    load: async () => (await import('./etcd-roles/etcd-roles-command.ts')).default,
  },
  init: {
    summary: 'Scaffold a GitOps repository that synthesizes etcdns per environment (etcdns init DIR)',
    load: async () => (await import('../scaffold/init-command.ts')).default,
  },
  plan: {
    summary: 'Print the changes the controller would make to etcd (per view, or --view NAME), and exit',
    load: async () => (await import('./controller/plan-command.ts')).default,
  },
  server: {
    summary: 'Answer DNS from the SkyDNS records in etcd (authoritative, UDP and TCP)',
    load: async () => (await import('./dns-server/server-command.ts')).serverCommand,
  },
  status: {
    summary: 'Show a running stack (etcd, DNS servers, secondaries, controller, problems); exit 1 if it needs a person',
    load: async () => (await import('./status/status-command.ts')).default,
  },
};

function usage(): string {
  const lines = ['Usage: etcdns <command> [options]', '', 'Commands:'];
  for (const [name, { summary }] of Object.entries(SUBCOMMANDS)) lines.push(`  ${name.padEnd(12)}${summary}`);
  lines.push(`  ${'version'.padEnd(12)}Print the version`);
  lines.push('', 'Run "etcdns <command> --help" for the options of a command.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${usage()}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === 'version' || command === '--version') {
    process.stdout.write(`etcdns ${VERSION}\n`);
    return 0;
  }
  const subcommand = SUBCOMMANDS[command];
  if (!subcommand) {
    process.stderr.write(`etcdns: unknown command "${command}"\n\n${usage()}\n`);
    return 2;
  }
  return (await subcommand.load()).run(rest);
}
