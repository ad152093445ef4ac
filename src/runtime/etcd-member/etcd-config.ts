// etcd's command-line flags as its --config-file YAML: the same keys, except that the TLS flags
// live under client-transport-security and peer-transport-security; booleans and numbers typed.
// (With --config-file, etcd ignores every other flag, so the file must hold all of them.)

const TRANSPORT: Record<string, [section: string, key: string]> = {
  'cert-file': ['client-transport-security', 'cert-file'],
  'key-file': ['client-transport-security', 'key-file'],
  'client-cert-auth': ['client-transport-security', 'client-cert-auth'],
  'trusted-ca-file': ['client-transport-security', 'trusted-ca-file'],
  'auto-tls': ['client-transport-security', 'auto-tls'],
  'peer-cert-file': ['peer-transport-security', 'cert-file'],
  'peer-key-file': ['peer-transport-security', 'key-file'],
  'peer-client-cert-auth': ['peer-transport-security', 'client-cert-auth'],
  'peer-trusted-ca-file': ['peer-transport-security', 'trusted-ca-file'],
  'peer-auto-tls': ['peer-transport-security', 'auto-tls'],
};

/** Integer settings in etcd's configuration file (everything else is a string or a boolean). */
const NUMBERS = new Set([
  'quota-backend-bytes',
  'snapshot-count',
  'heartbeat-interval',
  'election-timeout',
  'max-snapshots',
  'max-wals',
  'max-txn-ops',
  'max-request-bytes',
  'backend-batch-limit',
  'max-concurrent-streams',
]);

export type EtcdConfig = Record<string, string | number | boolean | Record<string, string | boolean>>;

/** `--key=value` / `--key value` / `--flag` flags, then `overrides` (flag names too). */
export function etcdConfig(flags: string[], overrides: Record<string, string> = {}): EtcdConfig {
  const values = new Map<string, string>();
  for (let i = 0; i < flags.length; i++) {
    const m = /^--?([a-z0-9-]+)(?:=(.*))?$/s.exec(flags[i]!);
    if (!m) throw new Error(`etcd flag "${flags[i]}" is not --name=value`);
    let value = m[2];
    if (value === undefined)
      value = flags[i + 1] !== undefined && !flags[i + 1]!.startsWith('-') ? flags[++i]! : 'true';
    values.set(m[1]!, value);
  }
  for (const [k, v] of Object.entries(overrides)) values.set(k, v);
  const config: EtcdConfig = {};
  for (const [key, raw] of values) {
    const value = raw === 'true' ? true : raw === 'false' ? false : NUMBERS.has(key) ? Number(raw) : raw;
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`--${key}: not a number (${raw})`);
    const transport = TRANSPORT[key];
    if (transport) {
      const section = (config[transport[0]] ??= {}) as Record<string, string | boolean>;
      section[transport[1]] = value as string | boolean;
    } else config[key] = value;
  }
  return config;
}
