// What a search on a status page matches: any part of a name, of an object reference
// ("service/default/web", whatever the kind) or of an address or target, without regard to case
// or a name's final dot. No term matches everything.

/** The search term of a request: trimmed, lower case, at most 255 characters ('' for none). */
export function searchTerm(url: URL): string {
  return (url.searchParams.get('q') ?? '').trim().toLowerCase().slice(0, 255);
}

/** True when `term` is empty or part of one of the fields. */
export function matches(term: string, ...fields: readonly (string | undefined)[]): boolean {
  if (term === '') return true;
  const wanted = term.endsWith('.') ? term.slice(0, -1) : term;
  return fields.some((f) => f !== undefined && f.toLowerCase().includes(wanted));
}

/** A canonical name as people write it: without its final dot. */
export function shownName(name: string): string {
  return name.length > 1 && name.endsWith('.') ? name.slice(0, -1) : name;
}
