// When each of a set of objects was deleted, in the API server's own order: one watch per kind and
// namespace records the resourceVersion (etcd's revision) at which an object was first marked for
// deletion (a deletionTimestamp, which foreground deletion and finalizers set) and at which it was
// gone. Revisions order the steps of a deletion exactly, where polling the objects could not.
import * as k8s from '@kubernetes/client-node';
import type { Cluster } from './cluster.ts';
import { waitFor } from './process.ts';

export interface WatchedObject {
  /** Empty for the core group. */
  group?: string;
  version: string;
  kind: string;
  namespace?: string;
  name: string;
}

export interface DeletionMarks {
  /** The revision at which it was first marked for deletion (or deleted, when never marked). */
  marked?: number;
  /** The revision at which it was gone. */
  gone?: number;
}

export interface DeletionWatch {
  /** "Kind/namespace/name" -> its marks so far. */
  marks(): Map<string, DeletionMarks>;
  stop(): void;
}

export const objectKey = (o: { kind: string; namespace?: string; name: string }) =>
  `${o.kind}/${o.namespace ?? ''}/${o.name}`;

/** The plural of each kind of one group/version, from the API server's discovery. */
function plurals(cluster: Cluster, group: string | undefined, version: string): Map<string, string> {
  const path = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const list = JSON.parse(cluster.kubectl(['get', '--raw', path])) as { resources: { name: string; kind: string }[] };
  return new Map(list.resources.filter((r) => !r.name.includes('/')).map((r) => [r.kind, r.name]));
}

/** Starts the watches; resolves once each has seen every object it watches (the watches are live). */
export async function watchDeletions(cluster: Cluster, objects: readonly WatchedObject[]): Promise<DeletionWatch> {
  const wanted = new Set(objects.map(objectKey));
  const marks = new Map<string, DeletionMarks>();
  const seen = new Set<string>();
  const paths = new Map<string, string>();
  const discovered = new Map<string, Map<string, string>>();
  for (const o of objects) {
    const gv = `${o.group ?? ''}/${o.version}`;
    if (!discovered.has(gv)) discovered.set(gv, plurals(cluster, o.group, o.version));
    const plural = discovered.get(gv)?.get(o.kind);
    if (!plural) throw new Error(`no resource for ${o.kind} in ${gv}`);
    const base = o.group ? `/apis/${o.group}/${o.version}` : `/api/${o.version}`;
    paths.set(`${base}${o.namespace ? `/namespaces/${o.namespace}` : ''}/${plural}`, o.kind);
  }
  const watch = new k8s.Watch(cluster.admin);
  const aborts = new Map<string, AbortController>();
  let stopped = false;
  const record = (kind: string, phase: string, obj: k8s.KubernetesObject) => {
    const key = objectKey({ kind, namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' });
    if (!wanted.has(key)) return;
    seen.add(key);
    const revision = Number(obj.metadata?.resourceVersion);
    const m = marks.get(key) ?? {};
    if (m.marked === undefined && (phase === 'DELETED' || obj.metadata?.deletionTimestamp)) m.marked = revision;
    if (phase === 'DELETED') m.gone = revision;
    marks.set(key, m);
  };
  // Each watch starts from the API server's cache ("0": its state now, whatever revision; without a
  // revision the API server waits for its cache to reach etcd's, which a kind nobody writes may
  // never do). A watch ends on an ERROR and after 30 s without an event (the client's limit): it
  // starts again from the last revision it saw, so no event is lost (from "0" if that is too old).
  const run = async (path: string, kind: string, from?: string): Promise<void> => {
    if (stopped) return;
    let last = from;
    const controller = await watch.watch(
      path,
      { resourceVersion: last ?? '0' },
      (phase: string, obj: k8s.KubernetesObject & { code?: number }) => {
        if (phase === 'ERROR') {
          if (obj.code === 410) last = undefined;
          return;
        }
        last = obj.metadata?.resourceVersion ?? last;
        record(kind, phase, obj);
      },
      () => {
        if (!stopped) setTimeout(() => void run(path, kind, last), 200);
      },
    );
    aborts.set(path, controller);
  };
  for (const [path, kind] of paths) await run(path, kind);
  const stop = () => {
    stopped = true;
    aborts.forEach((a) => a.abort());
  };
  try {
    await waitFor('every watched object seen', () => (seen.size === wanted.size ? true : undefined), 30_000, 50);
  } catch (e) {
    stop();
    const unseen = [...wanted].filter((k) => !seen.has(k));
    throw new Error(`${(e as Error).message}: ${unseen.join(', ')}`, { cause: e });
  }
  return { marks: () => marks, stop };
}
