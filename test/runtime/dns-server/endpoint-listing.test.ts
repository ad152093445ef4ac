// Table tests of "may the EndpointSlices still send clients to this pod": its address listed as a
// ready or a serving endpoint (a missing ready condition reads as ready, a missing serving
// condition as the ready one, as kube-proxy reads them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { listsAsServing } from '../../../src/runtime/dns-server/endpoint-listing.ts';

const POD = '10.244.0.7';
type Endpoint = { addresses: string[]; ready?: boolean; serving?: boolean; terminating?: boolean };
const slice = (...endpoints: Endpoint[]): V1EndpointSlice => ({
  addressType: 'IPv4',
  endpoints: endpoints.map(({ addresses, ready, serving, terminating }) => ({
    addresses,
    ...(ready === undefined && serving === undefined && terminating === undefined
      ? {}
      : { conditions: { ready, serving, terminating } }),
  })),
});

// [case, slices, listed as ready or serving]
const cases: [string, V1EndpointSlice[], boolean][] = [
  ['ready in the one slice', [slice({ addresses: [POD], ready: true })], true],
  ['no conditions: ready', [slice({ addresses: [POD] })], true],
  [
    'terminating, not ready, no serving condition: left',
    [slice({ addresses: [POD], ready: false, terminating: true })],
    false,
  ],
  [
    'terminating, not ready, still serving (the probe has not failed yet): listed',
    [slice({ addresses: [POD], ready: false, serving: true, terminating: true })],
    true,
  ],
  [
    'terminating, neither ready nor serving: left',
    [slice({ addresses: [POD], ready: false, serving: false, terminating: true })],
    false,
  ],
  ['gone from the slice, others ready', [slice({ addresses: ['10.244.0.8'], ready: true })], false],
  ['no slices at all', [], false],
  ['a slice without endpoints', [{ addressType: 'IPv4', endpoints: [] }], false],
  [
    'ready in the second slice (one Service split, or a second Service)',
    [slice({ addresses: ['10.244.0.8'] }), slice({ addresses: [POD], ready: true })],
    true,
  ],
  [
    'not ready in one slice, still ready in another',
    [slice({ addresses: [POD], ready: false }), slice({ addresses: [POD], ready: true })],
    true,
  ],
  ['an address that only starts with ours', [slice({ addresses: ['10.244.0.70'], ready: true })], false],
];

for (const [name, slices, want] of cases) {
  test(`listsAsServing: ${name}`, () => assert.equal(listsAsServing(slices, POD), want));
}
