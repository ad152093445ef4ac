// Static records in the environment file: each record set becomes one DNSEndpoint object in
// dist/<env>/, reviewed in Git and applied with the stack; the controller (with the "crd" source)
// publishes it and reports in its status whether it is live. Each is checked at synth by the
// rules the controller reads DNSEndpoints with, so a record the controller would refuse fails
// synth instead, naming it.
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { RECORD_TYPES, type RecordType } from '../../dns/record-types.ts';
import { canonicalName } from '../../dns/dns-name.ts';
import { endpointRecords } from '../../runtime/controller/sources/dns-endpoint/endpoint-records.ts';
import { DNS_ENDPOINT_API_VERSION } from '../../runtime/controller/sources/dns-endpoint/dns-endpoint.ts';
import type { StackPartProps } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SKIP_DRY_RUN, SYNC_WAVE } from '../base/gitops.ts';

export interface StaticRecordProps {
  /** The record name, e.g. "mail.example.org" or "_acme-challenge.example.org". */
  readonly name: string;
  /** A, AAAA, CNAME, TXT, MX, SRV, PTR or NS. */
  readonly type: RecordType;
  /**
   * The record data, one entry per record: addresses (A, AAAA), one name (CNAME), names (PTR,
   * NS), texts (TXT), "<preference> <exchange>" (MX), "<priority> <weight> <port> <target>" (SRV).
   */
  readonly targets: string[];
  /**
   * Seconds.
   * @default - the zone default
   */
  readonly ttl?: number;
}

/** "etcdns-mx-example.org": readable in `kubectl get dnsendpoints`, one per name and type. */
export function recordObjectName(stack: string, record: Pick<StaticRecordProps, 'name' | 'type'>): string {
  const labels = canonicalName(record.name)
    .slice(0, -1)
    .split('.')
    .map((l) => (l === '*' ? 'wildcard' : l.replace(/_/g, '-').replace(/^-+|-+$/g, '') || 'x'));
  return `${stack}-${record.type.toLowerCase()}-${labels.join('.')}`.slice(0, 253).replace(/[.-]+$/, '');
}

export function staticRecordProblems(
  records: readonly StaticRecordProps[] | undefined,
  stack: string,
  path: string,
): string[] {
  if (records === undefined) return [];
  if (!Array.isArray(records)) return [`${path}: must be a list of records`];
  const problems: string[] = [];
  const objects = new Map<string, number>();
  records.forEach((r, i) => {
    const at = `${path}[${i}]`;
    if (typeof r?.type !== 'string' || !RECORD_TYPES.includes(r.type))
      return problems.push(`${at}.type: must be one of ${RECORD_TYPES.join(', ')} (got ${JSON.stringify(r?.type)})`);
    if (!Array.isArray(r.targets) || r.targets.some((t: unknown) => typeof t !== 'string'))
      return problems.push(`${at}.targets: must be a list of strings`);
    if (r.ttl !== undefined && !(Number.isInteger(r.ttl) && r.ttl >= 1 && r.ttl <= 2 ** 31 - 1))
      problems.push(`${at}.ttl: must be a TTL in whole seconds from 1 to 2147483647 (got ${JSON.stringify(r.ttl)})`);
    const read = endpointRecords({ dnsName: r.name, recordType: r.type, targets: r.targets });
    if (!read.ok) return problems.push(`${at}: ${read.error}`);
    const name = recordObjectName(stack, r);
    const first = objects.get(name);
    if (first !== undefined)
      problems.push(
        `${at}: ${r.type} ${r.name} is also ${path}[${first}] (object ${name}); list all targets of a name and type in one record`,
      );
    else objects.set(name, i);
  });
  return problems;
}

export interface StaticRecordsProps extends StackPartProps {
  /** The records, one DNSEndpoint each. */
  readonly records: readonly StaticRecordProps[];
}

export class StaticRecords extends StackPart {
  constructor(scope: Construct, id: string, props: StaticRecordsProps) {
    const { stack, version } = props;
    super(scope, id, stack, { component: 'records', version, wave: SYNC_WAVE.workloads });
    for (const record of props.records) {
      const name = recordObjectName(stack.name, record);
      new ApiObject(this, name, {
        apiVersion: DNS_ENDPOINT_API_VERSION,
        kind: 'DNSEndpoint',
        // A first Argo CD sync dry-runs every object before the CRD (an earlier wave) exists.
        metadata: this.meta(name, { annotations: SKIP_DRY_RUN }),
        spec: {
          endpoints: [
            {
              dnsName: record.name,
              recordType: record.type,
              targets: [...record.targets],
              ...(record.ttl !== undefined ? { recordTTL: record.ttl } : {}),
            },
          ],
        },
      });
    }
  }
}
