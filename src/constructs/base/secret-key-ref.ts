// A key of a Secret the user (or an operator acting for them) creates: how the stack names a
// password or key it mounts and never holds.

/** A key of an existing Secret. */
export interface SecretKeyRef {
  name: string;
  key: string;
}
