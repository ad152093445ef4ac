// What every construct of a stack shares: its name, its namespace and the GitOps switches
// (stack-part.ts writes object metadata from them).

export interface StackContext {
  /** Stack name: the prefix of every object name and the app.kubernetes.io/name label. */
  name: string;
  /** Namespace of every namespaced object. */
  namespace: string;
  /** Annotate objects with Argo CD sync waves (see gitops.ts's SYNC_WAVE). */
  syncWaves: boolean;
}

/** What a construct of the stack is given besides its own settings. */
export interface StackPartProps {
  /** Name, namespace and GitOps switches of the stack. */
  readonly stack: StackContext;
  /** app.kubernetes.io/version of its objects: the version of the image the stack runs. */
  readonly version: string;
}
