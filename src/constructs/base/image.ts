// Container images, in one typed place. A reference is pinnable by digest and never `latest`:
// GitOps users need an image that cannot change under an unchanged manifest.
import { VERSION } from '../../version.ts';

export interface ImageRef {
  /** Registry and repository, e.g. "registry.k8s.io/etcd". */
  repository: string;
  /** A version tag, e.g. "3.5.21-0". Never "latest". */
  tag: string;
  /** Optional content digest, "sha256:<64 hex>"; when set, the digest decides what runs. */
  digest?: string;
}

/** The images the stack runs unless a component says otherwise. */
export const DEFAULT_IMAGES = {
  /** The upstream etcd image Kubernetes itself uses (not Bitnami: its tags moved in 2025). */
  etcd: { repository: 'registry.k8s.io/etcd', tag: '3.5.21-0' },
  /** The image built from this repository's Dockerfile, tagged with the package version. */
  etcdns: { repository: 'ghcr.io/etcdns/etcdns', tag: VERSION },
  /**
   * Knot DNS for the DNSSEC signer: Debian's knotd and keymgr with the libraries they link, a
   * shell and getent (scripts/setup-cluster-env.sh builds it as localhost/knot). No registry
   * publishes it: push it to your own, or give `dnssec.image`.
   */
  knot: { repository: 'ghcr.io/etcdns/knot', tag: '3.2.6' },
} as const satisfies Record<string, ImageRef>;

/** "repo:tag" or "repo:tag@sha256:…", the form a container spec takes. */
export function imageReference(image: ImageRef): string {
  return image.digest ? `${image.repository}:${image.tag}@${image.digest}` : `${image.repository}:${image.tag}`;
}

const REPOSITORY = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Problems with an image reference, each naming the field under `path`. */
export function imageProblems(image: ImageRef, path: string): string[] {
  const problems: string[] = [];
  if (!REPOSITORY.test(image.repository))
    problems.push(`${path}.repository: must be a lower-case registry/repository path (got "${image.repository}")`);
  if (image.tag === 'latest')
    problems.push(`${path}.tag: must be a fixed version tag, not "latest" (pin a version, optionally with a digest)`);
  else if (!TAG.test(image.tag))
    problems.push(`${path}.tag: must be 1-128 characters of letters, digits, "_", "." and "-" (got "${image.tag}")`);
  if (image.digest !== undefined && !DIGEST.test(image.digest))
    problems.push(`${path}.digest: must be "sha256:" followed by 64 lower-case hex digits (got "${image.digest}")`);
  return problems;
}
