// The DNS server's ServiceAccount, Role and RoleBinding: get, list and watch EndpointSlices in
// its namespace, nothing else. It reads them after SIGTERM, answering until its Services'
// EndpointSlices no longer list the pod as ready (the runtime's shutdown-drain.ts).
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';

export interface ServerEndpointAccessProps {
  /** The server's object metadata (name, namespace, labels, sync wave). */
  readonly metadata: k8s.ObjectMeta;
  /** The stack's namespace, of the RoleBinding's subject. */
  readonly namespace: string;
}

export class ServerEndpointAccess extends Construct {
  /** The ServiceAccount the server pods run as. */
  readonly serviceAccountName: string;

  constructor(scope: Construct, id: string, props: ServerEndpointAccessProps) {
    super(scope, id);
    const { metadata: meta, namespace } = props;
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
