// The package version, for the default image tag and `etcdns version`. A module of its own rather
// than an import of package.json, which the CommonJS build cannot reach at the same relative
// path; `npm version` rewrites it (scripts/sync-version.ts) and a test keeps the two equal.
export const VERSION = '0.1.0';
