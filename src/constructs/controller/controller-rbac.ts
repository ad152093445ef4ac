// The controller's least privilege: exactly the resources and verbs it uses. Reading is
// cluster-wide (sources and the objects they need), writing is limited to Events; leader
// election gets a Role in the controller's own namespace, on its one Lease.
import type { Construct } from 'constructs';
import { k8s } from 'cdk8s-plus-27';
import {
  readApis,
  sourceSpec,
  type ApiResource,
  type SourceKind,
  type SourceSwitches,
} from '../../config/source-kinds.ts';
import type { StackContext } from '../base/stack-context.ts';
import { StackPart } from '../base/stack-part.ts';
import { SYNC_WAVE } from '../base/gitops.ts';

const READ = ['get', 'list', 'watch'];

/**
 * ClusterRole rules for the enabled sources (src/config/source-kinds.ts): read what each source
 * lists and reads, nothing else; write Events, and the status of the objects whose source writes
 * it (DNSEndpoints). One rule per API group and verb set, sorted.
 */
export function controllerClusterRules(
  sources: readonly SourceKind[],
  switches: SourceSwitches = {},
): k8s.PolicyRule[] {
  const read = new Set<ApiResource>(readApis(sources, switches).values());
  const status = sources.map(sourceSpec).flatMap((s) => (s.writesStatus ? s.objects.map((o) => o.api) : []));
  const groups = new Map<string, Set<string>>([['', new Set()]]);
  for (const api of read) {
    if (!groups.has(api.group)) groups.set(api.group, new Set());
    groups.get(api.group)!.add(api.resource);
  }
  const rules: k8s.PolicyRule[] = [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }];
  for (const [group, resources] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    if (resources.size > 0) rules.push({ apiGroups: [group], resources: [...resources].sort(), verbs: READ });
    for (const api of status.filter((a) => a.group === group))
      rules.push({ apiGroups: [group], resources: [`${api.resource}/status`], verbs: ['patch'] });
  }
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
  /** The controller's settings that change what the sources read (gatewayListenerSets). */
  readonly switches: SourceSwitches;
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

export class ControllerRbac extends StackPart {
  constructor(scope: Construct, id: string, props: ControllerRbacProps) {
    const { stack, name } = props;
    super(scope, id, stack, {
      component: props.component,
      version: props.version,
      wave: SYNC_WAVE.workloads,
      labels: props.labels,
    });
    const meta = (namespaced: boolean) => this.meta(name, { namespaced });
    // A subject must name its namespace; kustomize's namespace transformer (also behind Flux's
    // targetNamespace) rewrites it along with the ServiceAccount it refers to.
    const subjects: k8s.Subject[] = [
      { kind: 'ServiceAccount', name: props.serviceAccountName, namespace: stack.namespace },
    ];
    const roleRef = (kind: string): k8s.RoleRef => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

    new k8s.KubeClusterRole(this, 'cluster-role', {
      metadata: meta(false),
      rules: controllerClusterRules(props.sources, props.switches),
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
