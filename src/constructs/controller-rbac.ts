// The controller's least privilege: exactly the resources and verbs it uses. Reading is
// cluster-wide (sources and the objects they need), writing is limited to Events; leader
// election gets a Role in the controller's own namespace, on its one Lease.
import { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import type { SourceKind } from '../config/controller-config.ts';
import { SYNC_WAVE, objectMeta, type StackContext } from './stack-context.ts';

const READ = ['get', 'list', 'watch'];

/** ClusterRole rules for the enabled sources, sorted by API group and resource. */
export function controllerClusterRules(sources: SourceKind[]): k8s.PolicyRule[] {
  const rules: k8s.PolicyRule[] = [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }];
  if (sources.includes('service')) {
    // EndpointSlices and Nodes turn headless and NodePort Services into addresses.
    rules.push(
      { apiGroups: [''], resources: ['nodes', 'services'], verbs: READ },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
    );
  }
  if (sources.includes('ingress'))
    rules.push({ apiGroups: ['networking.k8s.io'], resources: ['ingresses'], verbs: READ });
  return rules;
}

/** Role rules for leader election: create the Lease, then read and renew only that one. */
export function leaderElectionRules(leaseName: string): k8s.PolicyRule[] {
  return [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [leaseName], verbs: ['get', 'update'] },
  ];
}

export interface ControllerRbacProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** Name of the roles and bindings. */
  readonly name: string;
  /** app.kubernetes.io/component and version of the objects. */
  readonly component: string;
  /** app.kubernetes.io/version: the image tag. */
  readonly version: string;
  /** The ServiceAccount the bindings grant to (in the stack's namespace). */
  readonly serviceAccountName: string;
  /** Enabled sources: what the controller reads. */
  readonly sources: SourceKind[];
  /**
   * The Lease the Role allows, when leader election is on.
   * @default - no Role
   */
  readonly leaseName?: string;
  /**
   * Extra labels.
   * @default - none
   */
  readonly labels?: Record<string, string>;
}

export class ControllerRbac extends Construct {
  constructor(scope: Construct, id: string, props: ControllerRbacProps) {
    super(scope, id);
    const { stack, name } = props;
    const meta = (namespaced: boolean) =>
      objectMeta(stack, {
        name,
        component: props.component,
        version: props.version,
        namespaced,
        wave: SYNC_WAVE.workloads,
        labels: props.labels,
      });
    // A subject must name its namespace; kustomize's namespace transformer (also behind Flux's
    // targetNamespace) rewrites it along with the ServiceAccount it refers to.
    const subjects: k8s.Subject[] = [
      { kind: 'ServiceAccount', name: props.serviceAccountName, namespace: stack.namespace },
    ];
    const roleRef = (kind: string): k8s.RoleRef => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

    new k8s.KubeClusterRole(this, 'cluster-role', {
      metadata: meta(false),
      rules: controllerClusterRules(props.sources),
    });
    new k8s.KubeClusterRoleBinding(this, 'cluster-role-binding', {
      metadata: meta(false),
      roleRef: roleRef('ClusterRole'),
      subjects,
    });
    if (props.leaseName) {
      new k8s.KubeRole(this, 'role', { metadata: meta(true), rules: leaderElectionRules(props.leaseName) });
      new k8s.KubeRoleBinding(this, 'role-binding', { metadata: meta(true), roleRef: roleRef('Role'), subjects });
    }
  }
}
