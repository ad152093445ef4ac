// Runtime config files rendered into ConfigMaps: canonical JSON (sorted keys) so equal configs
// give equal bytes, and a content hash for the pod template so pods roll exactly when the config
// changes (never with the package version).
import { createHash } from 'node:crypto';

export const CONFIG_FILE = 'config.json';
export const CONFIG_DIR = '/etc/etcdns';
export const CONFIG_HASH_ANNOTATION = 'etcdns.io/config-hash';

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

export function renderConfigFile(config: object): string {
  return `${JSON.stringify(sortKeys(config), null, 2)}\n`;
}

/** First 16 hex digits of the SHA-256 of the rendered file. */
export function configHash(rendered: string): string {
  return createHash('sha256').update(rendered).digest('hex').slice(0, 16);
}
