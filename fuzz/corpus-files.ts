// The corpus on disk: fuzz/corpus/<target>/<sha1 of the input>, one input a file, as libFuzzer
// keeps it. Seeds are committed; `npm run fuzz -- --save` adds what a run found.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const FUZZ_DIR = dirname(fileURLToPath(import.meta.url));

export function corpusDir(target: string): string {
  return join(FUZZ_DIR, 'corpus', target);
}

export function readCorpus(target: string): Buffer[] {
  const dir = corpusDir(target);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .map((f) => readFileSync(join(dir, f)));
}

/** Writes an input under its hash into `dir`; returns the path. */
export function saveInput(dir: string, data: Buffer): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, createHash('sha1').update(data).digest('hex'));
  writeFileSync(file, data);
  return file;
}
