// Names of a scaffold's environments: each is a folder under dist/, a file under environments/, an
// Argo CD Application's and a Flux Kustomization's name, and a TypeScript identifier.

/** Environment names become folders, file names and Argo CD/Flux object names. */
export const ENVIRONMENT_NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/** Names of the scaffold's own files under environments/, so no environment may take them. */
export const RESERVED_ENVIRONMENTS = ['shared', 'index', 'clusters'] as const;

/** An environment name ("pre-prod") as a TypeScript identifier ("preProd"). */
export const identifier = (env: string) => env.replace(/-+(.)/g, (_, c: string) => c.toUpperCase());

/** The environment of a hub's member cluster `cluster`: its folder dist/spoke-<cluster>/. */
export const spokeEnvironment = (cluster: string) => `spoke-${cluster}`;
