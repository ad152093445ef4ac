// The audit lines of etcd writes: one per applied change, naming the object and why.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { auditEntries } from '../../../../src/runtime/controller/store/audit-entries.ts';

const value = (host: string, resource?: string) =>
  JSON.stringify({ host, owner: 'o', ...(resource ? { resource } : {}) });

const rows = [
  {
    what: 'a create names the object that wants it',
    plan: {
      creates: [
        { name: 'a.example.org.', key: '/skydns/org/example/a/1', after: value('10.0.0.1', 'service/default/a') },
      ],
    },
    want: [{ op: 'create', object: 'service/default/a', reason: 'desired by service/default/a' }],
  },
  {
    what: 'an update says the value changed',
    plan: {
      updates: [
        {
          name: 'a.example.org.',
          key: '/skydns/org/example/a/1',
          before: { value: value('10.0.0.1', 'service/default/a'), modRevision: '5' },
          after: value('10.0.0.2', 'service/default/a'),
        },
      ],
    },
    want: [{ op: 'update', object: 'service/default/a', reason: 'desired by service/default/a, value changed' }],
  },
  {
    what: 'a delete names the object it belonged to',
    plan: {
      deletes: [
        {
          name: 'a.example.org.',
          key: '/skydns/org/example/a/1',
          before: { value: value('10.0.0.1', 'ingress/web/a'), modRevision: '5' },
        },
      ],
    },
    want: [{ op: 'delete', object: 'ingress/web/a', reason: 'no longer desired by ingress/web/a' }],
  },
  {
    what: 'a name whose guard failed wrote nothing, so it has no line',
    plan: { creates: [{ name: 'taken.example.org.', key: '/skydns/org/example/taken/1', after: value('10.0.0.1') }] },
    conflicted: ['taken.example.org.'],
    want: [],
  },
];

describe('audit entries', () => {
  for (const row of rows) {
    test(row.what, () => {
      const plan = { creates: [], updates: [], deletes: [], ...row.plan };
      const got = auditEntries(plan, row.conflicted ?? []).map(({ op, object, reason }) => ({ op, object, reason }));
      assert.deepEqual(got, row.want);
    });
  }
});
