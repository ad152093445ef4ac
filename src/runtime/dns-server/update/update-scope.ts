// What one update key may change (the role of Knot's update-owner ACLs): TXT records, at
// `_acme-challenge.<name>` for names at or below its suffixes (or, with `names: any`, at any name
// below them), in entries it owns itself. The owner written into its entries is "update:<key>":
// a controller's owner id (letters, digits, ".", "_", "-") can never be one.
import { canonicalName, isInZone, labelsOf } from '../../../dns/dns-name.ts';
import type { UpdateKeyConfig } from '../../../config/update-config.ts';
import { TYPE } from '../wire/dns-constants.ts';

/** The one type an update may write. */
const WRITABLE = new Set<number>([TYPE.TXT]);
const CHALLENGE_LABEL = '_acme-challenge';

export class UpdateScope {
  readonly key: string;
  /** The `owner` of the entries this key writes: it touches no other. */
  readonly owner: string;
  private readonly suffixes: string[];
  private readonly anyName: boolean;

  constructor(config: Pick<UpdateKeyConfig, 'name' | 'suffixes' | 'names'>) {
    this.key = canonicalName(config.name);
    this.owner = `update:${this.key.slice(0, -1)}`;
    this.suffixes = config.suffixes.map(canonicalName);
    this.anyName = config.names === 'any';
  }

  /** Whether the key may write at `name` at all (any type: what deletions of a whole name need). */
  allowsName(name: string): boolean {
    if (this.anyName) return this.suffixes.some((s) => name !== s && isInZone(name, s));
    const labels = labelsOf(name);
    if (labels[0] !== CHALLENGE_LABEL || labels.length < 2) return false;
    const rest = canonicalName(labels.slice(1).join('.'));
    return this.suffixes.some((s) => isInZone(rest, s));
  }

  /** Whether an update of `type` records at `name` is the key's to make (ANY: a deletion of its own). */
  allows(name: string, type: number): boolean {
    return (WRITABLE.has(type) || type === TYPE.ANY) && this.allowsName(name);
  }
}
