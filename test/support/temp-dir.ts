// Temporary directories for the programs tests start, removed by cleanupTempDirs().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs: string[] = [];

/** A fresh directory under `parent` (the system's temporary directory unless told). */
export function tempDir(prefix: string, parent = tmpdir()): string {
  const dir = mkdtempSync(join(parent, `etcdns-${prefix}-`));
  dirs.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

process.once('exit', cleanupTempDirs);
