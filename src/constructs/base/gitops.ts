// Ordering that does not depend on which construct made an object: a CustomResourceDefinition of
// the stack goes into the first Argo CD sync wave, so that a custom resource of its kind in the
// same dist/<env>/ folder, whatever its own wave, is applied after it on a first sync (Argo CD
// applies wave by wave and skips the dry run of a resource whose CRD is in the same sync).
// Flux needs nothing: kustomize-controller applies CRDs and Namespaces first and waits until they
// are established before it dry-runs and applies the rest.
import { ApiObject } from 'cdk8s';
import type { IConstruct } from 'constructs';
import { SYNC_WAVE, SYNC_WAVE_ANNOTATION, type StackContext } from './stack-context.ts';

/** Puts every CustomResourceDefinition under `scope` into the first sync wave (with sync waves on). */
export function orderDefinitionsFirst(scope: IConstruct, stack: StackContext): void {
  if (!stack.syncWaves) return;
  for (const c of scope.node.findAll()) {
    if (c instanceof ApiObject && c.kind === 'CustomResourceDefinition')
      c.metadata.addAnnotation(SYNC_WAVE_ANNOTATION, String(SYNC_WAVE.definitions));
  }
}
