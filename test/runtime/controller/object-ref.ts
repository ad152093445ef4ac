// Test shorthand: the ObjectRef of "service/<namespace>/<name>" or "ingress/<namespace>/<name>",
// the resource id the records name in etcd.
import type { ObjectRef } from '../../../src/runtime/controller/desired-record.ts';

export function ref(id: string): ObjectRef {
  const [kind, namespace = '', name = ''] = id.split('/');
  return kind === 'ingress'
    ? { kind: 'Ingress', apiVersion: 'networking.k8s.io/v1', namespace, name }
    : { kind: 'Service', apiVersion: 'v1', namespace, name };
}
