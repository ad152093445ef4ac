// Every relative link and anchor in the repository's Markdown resolves, and every docs/ page is
// reachable from the README through links (issue 33 point 6). One test per Markdown file, naming
// each broken link with its line. Anchors are slugged as GitHub slugs headings (github-slugger:
// lower case, punctuation removed, spaces to hyphens, duplicates suffixed -1, -2, ...).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, test } from 'node:test';
import GithubSlugger from 'github-slugger';
import { repoRoot } from '../support/tools.ts';

/** Build output, installed and downloaded files: not the project's Markdown. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules', '.cache', 'dist', 'lib']);

function markdownFiles(dir = repoRoot): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return SKIPPED_DIRS.has(e.name) ? [] : markdownFiles(path);
    return e.isFile() && e.name.endsWith('.md') ? [relative(repoRoot, path)] : [];
  });
}

interface Link {
  line: number;
  target: string;
}

interface Parsed {
  links: Link[];
  anchors: Set<string>;
}

const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/;
const INLINE_LINK = /\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g;
const REFERENCE_DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/;
const HTML_LINK = /\s(?:href|src)="([^"]*)"/g;
const HTML_ANCHOR = /\s(?:id|name)="([^"]*)"/g;

/** The text GitHub renders for a heading's inline Markdown: what its slug is made from. */
function headingText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/<[^>]+>/g, '');
}

/** Links (outside code) and the anchors GitHub gives a Markdown file. */
function parse(text: string): Parsed {
  const slugger = new GithubSlugger();
  const links: Link[] = [];
  const anchors = new Set<string>();
  let fence: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const open = FENCE.exec(raw)?.[1];
    if (fence !== undefined) {
      if (open !== undefined && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      return;
    }
    if (open !== undefined) {
      fence = open;
      return;
    }
    const heading = HEADING.exec(raw)?.[1];
    if (heading !== undefined) anchors.add(slugger.slug(headingText(heading)));
    for (const m of raw.matchAll(HTML_ANCHOR)) anchors.add(m[1]!);
    const line = raw.replace(/`[^`]*`/g, '');
    const targets = [
      ...[...line.matchAll(INLINE_LINK)].map((m) => m[1]!),
      ...[...line.matchAll(HTML_LINK)].map((m) => m[1]!),
      ...[REFERENCE_DEFINITION.exec(line)?.[1]].filter((t) => t !== undefined),
    ];
    for (const target of targets) links.push({ line: i + 1, target });
  });
  return { links, anchors };
}

const files = markdownFiles().sort();
const parsed = new Map(files.map((f) => [f, parse(readFileSync(join(repoRoot, f), 'utf8'))]));

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** The repository path a relative link points at ('' for the file itself), and its anchor. */
function resolveLink(from: string, target: string): { path: string; anchor: string | undefined } {
  const hash = target.indexOf('#');
  const file = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
  const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
  const path = file === '' ? from : relative(repoRoot, join(repoRoot, dirname(from), file));
  return { path, anchor };
}

/** Why a link is broken, or undefined when it resolves. */
function brokenReason(from: string, target: string): string | undefined {
  if (target === '') return 'empty target';
  if (isExternal(target)) return undefined;
  if (target.startsWith('/')) return 'absolute path (GitHub resolves it outside the repository view)';
  const { path, anchor } = resolveLink(from, target);
  if (path.startsWith('..') || !existsSync(join(repoRoot, path))) return `${path} does not exist`;
  if (anchor === undefined || anchor === '' || !path.endsWith('.md')) return undefined;
  if (/^L\d+/.test(anchor)) return undefined;
  if (statSync(join(repoRoot, path)).isFile() && !parsed.get(path)?.anchors.has(anchor)) {
    return `${path} has no heading #${anchor}`;
  }
  return undefined;
}

describe('relative links and anchors resolve', () => {
  test('the repository has Markdown to check', () => {
    assert.ok(files.includes('README.md') && files.some((f) => f.startsWith('docs/')), files.join(', '));
  });
  for (const file of files) {
    test(file, () => {
      const broken = parsed
        .get(file)!
        .links.map((l) => ({ ...l, reason: brokenReason(file, l.target) }))
        .filter((l) => l.reason !== undefined)
        .map((l) => `${file}:${l.line}: (${l.target}) ${l.reason}`);
      assert.deepEqual(broken, []);
    });
  }
});

/** The Markdown files reachable from README.md by following relative links. */
function reachableFromReadme(): Set<string> {
  const seen = new Set(['README.md']);
  const queue = ['README.md'];
  for (let from = queue.shift(); from !== undefined; from = queue.shift()) {
    for (const { target } of parsed.get(from)?.links ?? []) {
      if (target === '' || isExternal(target) || target.startsWith('/')) continue;
      const { path } = resolveLink(from, target);
      if (parsed.has(path) && !seen.has(path)) {
        seen.add(path);
        queue.push(path);
      }
    }
  }
  return seen;
}

test('every docs/ page is reachable from README.md', () => {
  const reachable = reachableFromReadme();
  assert.deepEqual(
    files.filter((f) => f.startsWith('docs/') && !reachable.has(f)),
    [],
  );
});
