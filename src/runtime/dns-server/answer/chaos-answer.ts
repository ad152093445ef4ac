// The CHAOS-class names a server answers about itself, as BIND and Knot do, so an operator can
// tell which replica answered: TXT id.server. and hostname.bind. give its identifier,
// version.server. and version.bind. the etcdns version when that is turned on. Like Knot: a name
// turned off, any other CHAOS name and any other type are REFUSED; answers have TTL 0 and no AA.
import { CLASS, RCODE, TYPE } from '../wire/dns-constants.ts';
import type { Answer } from '../wire/dns-message.ts';

/** What the server tells about itself; undefined: that part is off. */
export interface ServerIdentity {
  /** id.server., hostname.bind. (and NSID, answered by the dispatch). */
  id: string | undefined;
  /** version.server., version.bind. */
  version: string | undefined;
}

const ID_NAMES: ReadonlySet<string> = new Set(['id.server.', 'hostname.bind.']);
const VERSION_NAMES: ReadonlySet<string> = new Set(['version.server.', 'version.bind.']);

/** The answer to a CHAOS-class question `name` (canonical: lower-case, trailing dot) of `type`. */
export function chaosAnswer(name: string, type: number, identity: ServerIdentity): Answer {
  const text =
    type !== TYPE.TXT
      ? undefined
      : ID_NAMES.has(name)
        ? identity.id
        : VERSION_NAMES.has(name)
          ? identity.version
          : undefined;
  if (text === undefined)
    return { rcode: RCODE.REFUSED, authoritative: false, answer: [], authority: [], additional: [] };
  return {
    rcode: RCODE.NOERROR,
    authoritative: false,
    answer: [{ name, type: TYPE.TXT, class: CLASS.CH, ttl: 0, text: [Buffer.from(text)] }],
    authority: [],
    additional: [],
  };
}
