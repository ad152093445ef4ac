// Rules for the Kubernetes side of the props (names, labels, quantities, ports): each construct
// checks its own props with these; the DNS and runtime settings are checked by src/config/.
// Every problem names its field as a path into the props and says what is allowed.
import * as v from 'valibot';
import { ConfigError } from '../../config/config-error.ts';
import { problemsOf } from '../../config/schema-problems.ts';

export function assertNoProblems(problems: string[]): void {
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Problems of an optional setting, by its one rule in src/config/. */
export function settingProblems(schema: v.GenericSchema, value: unknown, path: string): string[] {
  return value === undefined ? [] : problemsOf(schema, value, path);
}

export const show = (value: unknown) => JSON.stringify(value);
const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;
export const QUALIFIED_NAME =
  /^(?:[a-z0-9](?:[-a-z0-9.]{0,251}[a-z0-9])?\/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
export const SECRET_KEY = /^[-._a-zA-Z0-9]{1,253}$/;
export const CPU = /^(?:\d+m|\d+(?:\.\d{1,3})?)$/;
export const MEMORY = /^\d+(?:Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/;
export const DURATION = /^\d+(?:ms|s|m|h)$/;
/** Largest user, group or fsGroup id. */
export const MAX_ID = 2 ** 31 - 1;

export function isInt(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

export function intProblem(value: unknown, path: string, min: number, max: number, what = 'an integer'): string[] {
  return value === undefined || isInt(value, min, max)
    ? []
    : [`${path}: must be ${what} from ${min} to ${max} (got ${show(value)})`];
}

export function oneOf(value: unknown, path: string, allowed: readonly string[]): string[] {
  return value === undefined || allowed.includes(value as string)
    ? []
    : [`${path}: must be one of ${allowed.map(show).join(', ')} (got ${show(value)})`];
}

export function k8sName(value: unknown, path: string, kind: 'label' | 'subdomain', maxLength: number): string[] {
  if (value === undefined) return [];
  const pattern = kind === 'label' ? DNS1123_LABEL : DNS1123_SUBDOMAIN;
  if (typeof value !== 'string' || value.length > maxLength || !pattern.test(value))
    return [
      `${path}: must be ${maxLength} or fewer lower-case letters, digits and "-"${kind === 'subdomain' ? ' (and ".")' : ''}, starting and ending with a letter or digit (got ${show(value)})`,
    ];
  return [];
}

export function mapProblems(map: Record<string, string> | undefined, path: string, checkValues: boolean): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(map ?? {})) {
    if (!QUALIFIED_NAME.test(key))
      problems.push(`${path}: key ${show(key)} must be a qualified name such as "example.com/name"`);
    if (checkValues && (typeof value !== 'string' || !LABEL_VALUE.test(value)))
      problems.push(`${path}.${key}: must be 63 or fewer letters, digits, "-", "_" and "." (got ${show(value)})`);
  }
  return problems;
}
