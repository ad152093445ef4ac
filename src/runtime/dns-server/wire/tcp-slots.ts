// The rules of DNS-over-TCP connections under pressure (RFC 7766 6.2.3, RFC 7828), as Knot and
// Unbound apply them: when the bound on open connections is reached, a new connection makes
// room by closing the idle connections (no query in flight) that were active least recently, so
// a client with a question is served at once; only when none is idle is the new one refused. And
// the fuller the slots, the shorter the idle timeout (and the keepalive a client is told).

/** What the rule needs of one open connection. */
export interface TcpSlot {
  /** Queries received and not yet answered. */
  inFlight: number;
}

/**
 * The idle timeout as a share of the configured one, by the share of the bound in use: the
 * whole of it up to half full, a fifth up to three quarters, a twentieth above (10 s: 2 s, 0.5 s).
 */
const PRESSURE_STEPS: readonly (readonly [usedUpTo: number, share: number])[] = [
  [0.5, 1],
  [0.75, 0.2],
  [Infinity, 0.05],
];

/** Never below this: an answer must have time to reach a client before its connection is closed. */
const SHORTEST_IDLE_MS = 100;

/** How long a connection may stay idle when `open` of `max` slots are in use. */
export function idleTimeoutMs(open: number, max: number, configuredMs: number): number {
  const used = open / max;
  const share = PRESSURE_STEPS.find(([upTo]) => used <= upTo)![1];
  return Math.max(Math.round(configuredMs * share), Math.min(configuredMs, SHORTEST_IDLE_MS));
}

export interface Admission<T> {
  /** Close these first (idle, least recently active first). */
  close: T[];
  /** Whether the new connection is kept (false: no idle one was left to make room). */
  admit: boolean;
}

/**
 * Room for one new connection among `open` (in order of last activity, least recent first) under
 * the bound `max`.
 */
export function makeRoom<T extends TcpSlot>(open: Iterable<T>, count: number, max: number): Admission<T> {
  const needed = count + 1 - max;
  const close: T[] = [];
  if (needed <= 0) return { close, admit: true };
  for (const slot of open) {
    if (slot.inFlight > 0) continue;
    close.push(slot);
    if (close.length === needed) return { close, admit: true };
  }
  return { close, admit: false };
}
