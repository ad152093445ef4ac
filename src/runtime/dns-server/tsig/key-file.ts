// A BIND key file as the config names it: read once at start by whatever uses keys (transfers,
// updates), so an unreadable or invalid file stops the start naming the config field.
import { readFileSync } from 'node:fs';
import { parseKeyFile, type TsigKey } from './tsig.ts';

/** The keys of a BIND key file; unreadable or invalid: an error naming the config field. */
export function readKeyFile(file: string, field: string): TsigKey[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${field} ${file}: ${(e as Error).message}`, { cause: e });
  }
  return parseKeyFile(text, `${field} ${file}`);
}
