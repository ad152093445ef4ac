// The DNSEndpoint CustomResourceDefinition (externaldns.k8s.io/v1alpha1), opt-in: external-dns's
// schema, field for field (so objects written for external-dns validate unchanged, and
// external-dns reads objects written for etcdns), with what etcdns adds: status conditions
// (Accepted, Ready) and printer columns, so `kubectl get dnsendpoints` shows whether each object
// is live. Where external-dns's own CRD is installed instead, the API server prunes the
// conditions (its status schema has observedGeneration only): the records are published all the
// same, only the columns stay empty.
import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';
import { DNS_ENDPOINTS } from '../../config/source-kinds.ts';
import { PRUNE_PROTECTION, SYNC_WAVE } from '../base/gitops.ts';
import type { StackPartProps } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';

const { group, resource, versions } = DNS_ENDPOINTS;
export const DNS_ENDPOINT_CRD_NAME = `${resource}.${group}`;

const string = (description: string) => ({ type: 'string', description });

/** metav1.Condition, as the API conventions define it. */
const conditionSchema = {
  type: 'object',
  required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
  properties: {
    type: { ...string('Accepted or Ready.'), maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'], description: 'The condition holds, or not.' },
    reason: { ...string('One CamelCase word: why.'), maxLength: 1024 },
    message: { ...string('What a person needs to know, in a sentence or a list.'), maxLength: 32768 },
    lastTransitionTime: { type: 'string', format: 'date-time', description: 'When the status last changed.' },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0, description: 'The generation it describes.' },
  },
};

const endpointSchema = {
  type: 'object',
  description: 'One record set: a name, a type and its targets.',
  properties: {
    dnsName: string('The name of the records, e.g. www.example.org.'),
    recordType: string('A, AAAA, CNAME, TXT, MX, SRV, PTR or NS (others are refused with a reason).'),
    targets: {
      type: 'array',
      items: { type: 'string' },
      description:
        'The record data: addresses, a name, texts, "<preference> <exchange>" or "<priority> <weight> <port> <target>".',
    },
    recordTTL: { type: 'integer', format: 'int64', description: 'Seconds; 0 or none: the zone default.' },
    labels: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: "external-dns's bookkeeping; etcdns reads no DNS data from it.",
    },
    providerSpecific: {
      type: 'array',
      description: 'Settings of a DNS provider; etcdns ignores them and says so.',
      items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
    setIdentifier: string('For weighted or routed record sets of some providers; etcdns ignores it and says so.'),
  },
};

/** *.k8s.io groups are protected: the API server wants the approval external-dns's CRD names. */
const APPROVAL = { 'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/external-dns/pull/2007' };

/** The CRD object itself, as synth writes it but for the stack's labels and prune protection (the tests install it). */
export function dnsEndpointCrd(): {
  apiVersion: string;
  kind: string;
  metadata: { name: string; annotations: Record<string, string> };
  spec: Record<string, unknown>;
} {
  const condition = (type: string, field: 'status' | 'reason') => `.status.conditions[?(@.type=="${type}")].${field}`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: DNS_ENDPOINT_CRD_NAME, annotations: APPROVAL },
    spec: {
      group,
      names: { kind: 'DNSEndpoint', listKind: 'DNSEndpointList', plural: resource, singular: 'dnsendpoint' },
      scope: 'Namespaced',
      versions: [
        {
          name: versions[0],
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Accepted', type: 'string', jsonPath: condition('Accepted', 'status') },
            { name: 'Ready', type: 'string', jsonPath: condition('Ready', 'status') },
            { name: 'Reason', type: 'string', jsonPath: condition('Ready', 'reason') },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: 'DNS records kept in Git: published by etcdns (or external-dns) as they are.',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: {
                  type: 'object',
                  properties: { endpoints: { type: 'array', items: endpointSchema } },
                },
                status: {
                  type: 'object',
                  properties: {
                    observedGeneration: {
                      type: 'integer',
                      format: 'int64',
                      description: 'The generation the status describes.',
                    },
                    conditions: {
                      type: 'array',
                      items: conditionSchema,
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['type'],
                    },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

export class DnsEndpointCrd extends StackPart {
  constructor(scope: Construct, id: string, props: StackPartProps) {
    super(scope, id, props.stack, { component: 'crd', version: props.version, wave: SYNC_WAVE.namespace });
    const { spec, apiVersion, kind } = dnsEndpointCrd();
    const meta = this.meta(DNS_ENDPOINT_CRD_NAME, {
      namespaced: false,
      // Pruning or deleting it would delete every DNSEndpoint of the cluster, users' own too.
      annotations: { ...APPROVAL, ...PRUNE_PROTECTION },
    });
    new ApiObject(this, 'crd', { apiVersion, kind, metadata: meta, spec });
  }
}
