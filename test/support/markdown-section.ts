// The text of one `## ` section of a Markdown page, for tests that check what a page shows
// (its examples, its tables) against the real thing.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './tools.ts';

/** From `## heading` up to the next `## ` heading (or the end) of `page`, a path from the repository root. */
export function markdownSection(page: string, heading: string): string {
  const text = readFileSync(join(repoRoot, page), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `${page} has "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}
