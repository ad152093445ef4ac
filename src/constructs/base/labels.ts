// Labels. Selectors use two fixed labels (name + component) and nothing else: selectors are
// immutable on Deployments and StatefulSets, so they must not depend on the construct path
// (cdk8s-plus's cdk8s.io/metadata.addr) nor on app.kubernetes.io/instance (Argo CD's tracking label).

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';

/** The component label of each part of the stack; one DNS server component per view. */
export const COMPONENT = {
  etcd: 'etcd',
  controller: 'controller',
  /** The Job that creates etcd's roles and users (etcd-roles.ts). */
  etcdRoles: 'etcd-roles',
  server: (view: string): string => `server-${view}`,
  /** Knot, signing one view's zones (dnssec/dnssec-signer.ts). */
  signer: 'dnssec-signer',
} as const;

/** The immutable selector of one component of one stack. */
export function selectorLabels(stackName: string, component: string): Record<string, string> {
  return { [LABEL_NAME]: stackName, [LABEL_COMPONENT]: component };
}

/** The recommended labels for every object; `extra` never reaches a selector. */
export function recommendedLabels(
  stackName: string,
  component: string,
  version: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ...extra,
    ...selectorLabels(stackName, component),
    'app.kubernetes.io/part-of': 'etcdns',
    'app.kubernetes.io/managed-by': 'etcdns',
    'app.kubernetes.io/version': version,
  };
}

/**
 * Labels of a pod template: the object's labels without the version, so that upgrading the
 * package alone does not roll the pods (the image reference and the config hash do that).
 */
export function podTemplateLabels(labels: Record<string, string> = {}): Record<string, string> {
  const { ['app.kubernetes.io/version']: _version, ...rest } = labels;
  return rest;
}
