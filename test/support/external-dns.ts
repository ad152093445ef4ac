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
  try {
    const { stdout, stderr } = await run(tool('external-dns'), [...args, '--once'], {
      env: { ...process.env, ...env },
      timeout: 120_000,
    });
    return stdout + stderr;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`external-dns failed: ${err.message}\n${err.stdout ?? ''}${err.stderr ?? ''}`, { cause: e });
  }
}

/** Starts external-dns as a long-running controller (for side-by-side and latency tests). */
export async function startExternalDns(o: ExternalDnsOptions): Promise<ManagedProcess> {
  const { args, env } = commandLine(o, await freePort());
  return startProcess('external-dns', tool('external-dns'), args, { env });
}
