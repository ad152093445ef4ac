// One option table per command drives its flags, its environment variables and its --help.
// Every option is a flag `--name` and the variable ETCDNS_<NAME> (upper-case, "-" -> "_"), both
// commands alike; names used before that scheme are still read, with a one-line deprecation
// warning. Precedence: flags, then the environment, then the --config file. Each value remembers
// where it came from, so a problem names its field and its source.
import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.ts';
import type { SourceOf } from './schema-problems.ts';

export interface OptionSpec {
  flag: string;
  /**
   * string: the last one given; list: every one given, each split at commas; repeated: every one
   * given, as given (a template may hold commas); bool: a flag alone is true.
   */
  kind: 'string' | 'list' | 'repeated' | 'bool' | 'int';
  /** The config field it sets ("etcd.endpoints"); none: a command switch such as --once. */
  field?: string;
  /** Placeholder in --help ("URL[,URL]"). */
  value?: string;
  help: string;
  /** Other flags meaning the same (kept for existing scripts). */
  aliases?: string[];
  /** Environment names of earlier releases, read with a deprecation warning. */
  deprecatedEnv?: string[];
  /** A secret: read from the environment only, never a flag (flags show in `ps`). */
  envOnly?: boolean;
  /** Turns the parsed value into the field's value (e.g. zone names into zone objects). */
  toField?: (value: unknown) => unknown;
}

export interface CommandTable {
  /** "server", "controller", "plan". */
  command: string;
  synopsis: string;
  description: string;
  options: OptionSpec[];
}

export interface LoadedOptions {
  /** The merged, not yet validated config. */
  raw: Record<string, unknown>;
  sourceOf: SourceOf;
  /** Values of the options without a config field, by flag. */
  switches: Map<string, unknown>;
}

export const envName = (flag: string) => `ETCDNS_${flag.toUpperCase().replace(/-/g, '_')}`;

/** Options every command has. */
export const CONFIG_OPTION: OptionSpec = {
  flag: 'config',
  kind: 'string',
  value: 'FILE',
  help: 'a config file (JSON)',
};
export const HELP_OPTION: OptionSpec = { flag: 'help', kind: 'bool', aliases: ['h'], help: 'this help' };

function convert(spec: OptionSpec, given: string[]): unknown {
  const last = given[given.length - 1]!;
  switch (spec.kind) {
    case 'list':
      return given
        .flatMap((g) => g.split(','))
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'repeated':
      return given;
    case 'bool':
      return last === 'true' || last === '1' ? true : last === 'false' || last === '0' ? false : last;
    case 'int':
      // A non-number stays a string: the schema then says what is allowed, naming the source.
      return /^-?\d+$/.test(last) ? Number(last) : last;
    default:
      return last;
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) {
    const next = at[key];
    at = at[key] = next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {};
  }
  at[keys[keys.length - 1]!] = value;
}

function readConfigFile(file: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError([`config file ${file}: ${(e as Error).message}`]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError([`config file ${file}: must hold a JSON object`]);
  return parsed as Record<string, unknown>;
}

/** Flags, environment and config file merged into one raw config, each field with its source. */
export function loadOptions(
  table: CommandTable,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  warn: (message: string) => void,
): LoadedOptions {
  const specs = [...table.options, CONFIG_OPTION, HELP_OPTION];
  const byFlag = new Map(
    specs.filter((s) => !s.envOnly).flatMap((s) => [s.flag, ...(s.aliases ?? [])].map((f) => [f, s] as const)),
  );
  const given = new Map<OptionSpec, string[]>();
  for (let i = 0; i < args.length; i++) {
    const m = /^--?([a-z][a-z0-9-]*)(?:=(.*))?$/.exec(args[i]!);
    if (!m) throw new ConfigError([`unexpected argument "${args[i]}"`]);
    const spec = byFlag.get(m[1]!);
    if (!spec) throw new ConfigError([`unknown flag --${m[1]} (see etcdns ${table.command} --help)`]);
    const value = m[2] ?? (spec.kind === 'bool' ? 'true' : args[++i]);
    if (value === undefined)
      throw new ConfigError([`--${spec.flag} needs a value${spec.field ? ` (config field "${spec.field}")` : ''}`]);
    given.set(spec, [...(given.get(spec) ?? []), value]);
  }

  const sources = new Map<string, string>();
  const switches = new Map<string, unknown>();
  const valueOf = (spec: OptionSpec): [unknown, string] | undefined => {
    const fromFlags = given.get(spec);
    if (fromFlags) return [convert(spec, fromFlags), `--${spec.flag}`];
    for (const name of [envName(spec.flag), ...(spec.deprecatedEnv ?? [])]) {
      const value = env[name];
      if (value === undefined) continue;
      if (name !== envName(spec.flag)) warn(`${name} is deprecated; use ${envName(spec.flag)}`);
      return [convert(spec, [value]), name];
    }
    return undefined;
  };

  const file = valueOf(CONFIG_OPTION)?.[0] as string | undefined;
  const raw = file !== undefined && !given.has(HELP_OPTION) ? readConfigFile(file) : {};
  for (const key of Object.keys(raw)) sources.set(key, `file ${file}`);
  for (const spec of specs) {
    const found = valueOf(spec);
    if (found === undefined) continue;
    const [value, source] = found;
    if (spec.field === undefined) switches.set(spec.flag, value);
    else {
      setPath(raw, spec.field, spec.toField ? spec.toField(value) : value);
      sources.set(spec.field, source);
    }
  }
  return { raw, sourceOf: (path) => sources.get(path), switches };
}

/** The --help text, from the table. */
export function usage(table: CommandTable): string {
  const specs = [...table.options, CONFIG_OPTION, HELP_OPTION];
  const left = (s: OptionSpec) =>
    s.envOnly
      ? `${envName(s.flag)} ${s.value ?? 'VALUE'}`
      : [s.flag, ...(s.aliases ?? [])].map((f) => (f.length === 1 ? `-${f}` : `--${f}`)).join(', ') +
        (s.kind === 'bool' ? '' : ` ${s.value ?? (s.kind === 'list' ? 'A[,B]' : 'VALUE')}`);
  const width = Math.max(...specs.map((s) => left(s).length)) + 2;
  const right = (s: OptionSpec) => {
    if (s === HELP_OPTION) return s.help;
    const old = s.deprecatedEnv?.length ? `; formerly ${s.deprecatedEnv.join(', ')}` : '';
    return s.envOnly ? `${s.help} (environment only${old})` : `${s.help} [${envName(s.flag)}${old}]`;
  };
  return [
    `Usage: etcdns ${table.command} ${table.synopsis}`,
    '',
    table.description,
    '',
    'Options, each also an environment variable [in brackets]; flags override the environment,',
    'the environment overrides the config file. Lists repeat or take commas.',
    ...specs.map((s) => `  ${left(s).padEnd(width)}${right(s)}`),
    '',
  ].join('\n');
}
