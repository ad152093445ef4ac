// The frame both status pages share: plain server-rendered HTML (no script, works without
// JavaScript), a search form that is an ordinary GET, and response headers that forbid scripts,
// frames and outside resources, so even a mistake in escaping could not run anything. Links are
// relative, so the page also works under a path prefix (the API server's pod proxy).
import { Html, html } from './html.ts';

export const STATUS_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Most rows a table shows; a search narrows the rest. */
export const ROW_LIMIT = 200;

const STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; }
h1 { font-size: 1.4em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.4em 0 .4em; }
.summary { color: #444; margin-bottom: 1em; } .summary b { color: #1b1f24; }
form { margin: 1em 0; } input[type=search] { width: 28em; padding: .3em; font: inherit; }
table { border-collapse: collapse; width: 100%; margin-bottom: .5em; }
th, td { text-align: left; vertical-align: top; padding: .3em .6em; border-bottom: 1px solid #d8dee4; }
th { background: #f3f5f7; } td ul { margin: 0; padding-left: 1.1em; }
.name, .mono { font-family: ui-monospace, monospace; } .name { font-weight: 600; }
.published { color: #116329; } .refused, .problem { color: #a40e26; } .dropped, .not-selected, .outside-zones { color: #6e7781; }
.ok { color: #116329; } .bad { color: #a40e26; font-weight: 600; } .note { color: #6e7781; }
`;

export interface StatusPageContent {
  /** e.g. "etcdns controller". */
  title: string;
  /** One line about the process (leader, last sync, readiness). */
  summary: Html;
  /** The search term as typed ('' for none). */
  query: string;
  /** What the search looks in, for the form's label. */
  searchIn: string;
  body: Html;
  now: Date;
  /** Path of the JSON form, if any. */
  json?: string;
}

export function statusPage(c: StatusPageContent): string {
  const page = html`<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${c.title}</title><style>${new Html(STYLE)}</style></head>
<body>
<h1>${c.title}</h1>
<div class="summary">${c.summary}</div>
<form method="get" action="status" role="search">
<label>Search by ${c.searchIn}: <input type="search" name="q" value="${c.query}" autofocus></label>
<button type="submit">Search</button>${c.query ? html` <a href="status">show all</a>` : ''}
</form>
${c.body}
<p class="note">Read-only; generated ${time(c.now)}.${c.json ? html` The same as JSON: <a href="${c.json}">${c.json}</a>.` : ''}</p>
</body>
</html>`;
  return `<!doctype html>\n${page.text}\n`;
}

/** A date as the pages print it: ISO 8601 in UTC, to the second. */
export function time(date: Date | undefined): string {
  return date ? `${date.toISOString().slice(0, 19)}Z` : 'never';
}
