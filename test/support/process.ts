// Starts a real program as a child process, keeps its output for diagnosis, and stops it by
// PID. Every handle is registered so that stopAll() (run by the exit hook and by tests'
// after() hooks) leaves no process behind, also when a test fails.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  /** Everything the program wrote to stdout and stderr so far (last 1 MiB). */
  logs(): string;
  /** True while the process runs. */
  running(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** Sends a signal without waiting (SIGKILL to simulate a crash, SIGSTOP to freeze). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name) when the process ends. */
  exited: Promise<number | string>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Replace the environment instead of extending process.env. */
  cleanEnv?: boolean;
}

const live = new Set<ManagedProcess>();
const LOG_LIMIT = 1 << 20;

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: StartOptions = {},
): ManagedProcess {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: options.cleanEnv ? { ...options.env } : { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > LOG_LIMIT) output = output.slice(-LOG_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    // 'close' rather than 'exit': by then all of its output has been read.
    child.once('close', (code, signal) => {
      done = true;
      live.delete(handle);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  const pid = child.pid;
  const handle: ManagedProcess = {
    name,
    pid,
    exited,
    logs: () => output,
    running: () => !done,
    kill: (signal) => {
      if (!done) process.kill(pid, signal);
    },
    stop: async (graceMs = 5000) => {
      if (done) return;
      process.kill(pid, 'SIGCONT');
      process.kill(pid, 'SIGTERM');
      const timer = setTimeout(() => !done && process.kill(pid, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
  live.add(handle);
  return handle;
}

/** Stops every process this test file started that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
}

process.once('exit', () => {
  for (const p of live) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Thrown by a waitFor check to stop waiting at once (e.g. the awaited process has exited). */
export class GiveUp extends Error {}

/**
 * Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`.
 * Errors thrown by `check` count as "not yet", except GiveUp, which ends the wait.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      if (e instanceof GiveUp) throw e;
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Waits until the process is ready per `check`, failing early with its logs if it exits. */
export async function waitReady(
  proc: ManagedProcess,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  await waitFor(
    `${proc.name} ${what}`,
    async () => {
      if (!proc.running()) throw new GiveUp(`${proc.name} exited before it was ${what}`);
      return (await check()) ? true : undefined;
    },
    timeoutMs,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n--- ${proc.name} output ---\n${proc.logs().slice(-4000)}`);
  });
}
