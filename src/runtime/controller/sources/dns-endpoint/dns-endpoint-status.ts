// What a DNSEndpoint's status says after a sync, so `kubectl get dnsendpoints` shows whether each
// object is live: Accepted (every endpoint could be read: True/Accepted, or False/Invalid naming
// the refused ones) and Ready (its records are in etcd as asked: True/Programmed; or False with
// the first reason that applies: NotOwned, Conflict, NotClaimed, Filtered, Invalid), each for the object's
// generation. A condition keeps its lastTransitionTime while its status stays. Pure.
import type { Problem } from '../../desired-record.ts';
import type { DnsEndpointStatus, StatusCondition } from './dns-endpoint.ts';

export interface StatusInput {
  generation: number | undefined;
  /** Endpoints in the spec (null entries not counted). */
  endpoints: number;
  /** The object's problems after the sync: the source's, the views', the plan's. */
  problems: readonly Problem[];
  /** Records of the object some view publishes (after selection, zones and rules). */
  publishedRecords: number;
  previous: DnsEndpointStatus | undefined;
  /** RFC 3339, for conditions whose status changes. */
  now: string;
}

/** Messages are cut here: a status is read by people, and an object may have thousands of endpoints. */
const MAX_MESSAGE = 1024;

const READY_REASONS: [Problem['reason'][], string][] = [
  [['NameOwnedByOthers'], 'NotOwned'],
  [['RecordConflict'], 'Conflict'],
  [['NameNotClaimed'], 'NotClaimed'],
  [['HostnameNotInDomain', 'PrivateAddressRefused'], 'Filtered'],
];

function cut(text: string): string {
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}

function condition(
  type: string,
  status: StatusCondition['status'],
  reason: string,
  message: string,
  input: StatusInput,
): StatusCondition {
  const before = input.previous?.conditions?.find((c) => c.type === type);
  return {
    type,
    status,
    reason,
    message: cut(message),
    lastTransitionTime: before?.status === status ? before.lastTransitionTime : input.now,
    ...(input.generation !== undefined ? { observedGeneration: input.generation } : {}),
  };
}

const messages = (problems: readonly Problem[]) => problems.map((p) => p.message).join('; ');

export function dnsEndpointStatus(input: StatusInput): DnsEndpointStatus {
  const invalid = input.problems.filter((p) => p.reason === 'InvalidEndpoint');
  const ignored = input.problems.filter((p) => p.reason === 'IgnoredField');
  const valid = input.endpoints - invalid.length;
  const accepted =
    invalid.length === 0
      ? condition(
          'Accepted',
          'True',
          'Accepted',
          `${input.endpoints} endpoint(s) read${ignored.length > 0 ? `; ${messages(ignored)}` : ''}`,
          input,
        )
      : condition(
          'Accepted',
          'False',
          'Invalid',
          `${invalid.length} of ${input.endpoints} endpoint(s) refused: ${messages(invalid)}`,
          input,
        );
  let ready: StatusCondition | undefined;
  for (const [reasons, reason] of READY_REASONS) {
    const found = input.problems.filter((p) => reasons.includes(p.reason));
    if (found.length > 0) {
      ready = condition('Ready', 'False', reason, messages(found), input);
      break;
    }
  }
  if (!ready && valid === 0) ready = condition('Ready', 'False', 'Invalid', 'no endpoint can be published', input);
  if (!ready && input.publishedRecords === 0)
    ready = condition('Ready', 'False', 'Filtered', 'no view publishes its names (selection, zones or rules)', input);
  ready ??= condition(
    'Ready',
    'True',
    'Programmed',
    `${input.publishedRecords} record(s) in etcd from ${valid} endpoint(s)`,
    input,
  );
  return {
    ...(input.generation !== undefined ? { observedGeneration: input.generation } : {}),
    conditions: [accepted, ready],
  };
}

/**
 * Equal but for transition times (and the order of fields: the API server stores them sorted):
 * nothing to write.
 */
export function sameStatus(a: DnsEndpointStatus | undefined, b: DnsEndpointStatus): boolean {
  const strip = (s: DnsEndpointStatus | undefined) =>
    JSON.stringify([
      s?.observedGeneration,
      (s?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]),
    ]);
  return strip(a) === strip(b);
}
