// The real external-dns (built from the Go module proxy) with its CoreDNS provider, pointed at
// a test kube-apiserver and etcd.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort } from './ports.ts';
import { startProcess, type ManagedProcess } from './process.ts';
import { tool } from './tools.ts';

const run = promisify(execFile);

export interface ExternalDnsOptions {
  kubeconfigFile: string;
  etcdEndpoints: string[];
  /** Extra arguments, e.g. ["--source=service", "--domain-filter=example.org", "--txt-owner-id=x"]. */
  args: string[];
  env?: Record<string, string>;
}

function commandLine(o: ExternalDnsOptions, metricsPort: number): { args: string[]; env: Record<string, string> } {
  return {
    args: [
      '--provider=coredns',
      `--kubeconfig=${o.kubeconfigFile}`,
      `--metrics-address=127.0.0.1:${metricsPort}`,
      '--log-level=debug',
      ...o.args,
    ],
    env: { ETCD_URLS: o.etcdEndpoints.join(','), ...o.env },
  };
}

/** Runs one reconciliation (`--once`) and returns its output; rejects with the output on failure. */
export async function runExternalDns(o: ExternalDnsOptions): Promise<string> {
  const { args, env } = commandLine(o, await freePort());
  const result = await run(tool('external-dns'), [...args, '--once'], {
    env: { ...process.env, ...env },
    timeout: 120_000,
  }).catch((e: { stdout?: string; stderr?: string; message: string }) => e);
  if ('message' in result) {
    // Its first line dumps the whole configuration; the reason is at the end.
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
      .split('\n')
      .filter((l) => !l.includes('msg="config: {'));
    throw new Error(`external-dns --once failed:\n${output.join('\n').slice(-4000)}`);
  }
  return result.stdout + result.stderr;
}

/** Starts external-dns as a long-running controller (for side-by-side and latency tests). */
export async function startExternalDns(o: ExternalDnsOptions): Promise<ManagedProcess> {
  const { args, env } = commandLine(o, await freePort());
  return startProcess('external-dns', tool('external-dns'), args, { env });
}
