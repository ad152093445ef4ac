// What a subcommand of `etcdns` provides; its one-line summary lives in the command table
// (cli.ts), so that `etcdns --help` lists the commands without loading any of them.
export interface Subcommand {
  /** Runs the subcommand; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}
