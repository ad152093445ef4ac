// Table tests of "do the EndpointSlices still send clients to this pod": its address listed as a
// ready endpoint (a missing ready condition reads as ready, as kube-proxy reads it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { listsAsReady } from '../../../src/runtime/dns-server/endpoint-listing.ts';

const POD = '10.244.0.7';
type Endpoint = { addresses: string[]; ready?: boolean; terminating?: boolean };
const slice = (...endpoints: Endpoint[]): V1EndpointSlice => ({
  addressType: 'IPv4',
  endpoints: endpoints.map(({ addresses, ready, terminating }) => ({
    addresses,
    ...(ready === undefined && terminating === undefined ? {} : { conditions: { ready, terminating } }),
  })),
});

// [case, slices, listed as ready]
const cases: [string, V1EndpointSlice[], boolean][] = [
  ['ready in the one slice', [slice({ addresses: [POD], ready: true })], true],
  ['no conditions: ready', [slice({ addresses: [POD] })], true],
  ['terminating, not ready: left', [slice({ addresses: [POD], ready: false, terminating: true })], false],
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
  test(`listsAsReady: ${name}`, () => assert.equal(listsAsReady(slices, POD), want));
}
