// The DNS server's ServiceAccount, Role and RoleBinding: get, list and watch EndpointSlices in
// its namespace, nothing else. It reads them after SIGTERM, answering until its Services'
// EndpointSlices no longer list the pod as ready (the runtime's shutdown-drain.ts).
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';

export class ServerEndpointAccess extends Construct {
  /** The ServiceAccount the server pods run as. */
  readonly serviceAccountName: string;

  /** `meta`: the server's object metadata (name, namespace, labels, sync wave). */
  constructor(scope: Construct, id: string, meta: k8s.ObjectMeta, namespace: string) {
    super(scope, id);
    const name = meta.name!;
    this.serviceAccountName = name;
    new k8s.KubeServiceAccount(this, 'service-account', { metadata: meta, automountServiceAccountToken: false });
    new k8s.KubeRole(this, 'role', {
      metadata: meta,
      rules: [{ apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['get', 'list', 'watch'] }],
    });
    new k8s.KubeRoleBinding(this, 'role-binding', {
      metadata: meta,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      // kustomize's namespace transformer rewrites the subject's namespace with the objects'.
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    });
  }
}
