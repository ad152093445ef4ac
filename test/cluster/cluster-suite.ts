// The life every cluster suite shares: the images built and a cluster started before its tests;
// after them, what the suite started on top stopped first, then the cluster (which puts the host
// back), every process left, and the suite's figures printed as one line. And the wait until a
// freshly applied stack is up (its first answer, its pods Ready), which fails fast on a crash
// loop and says why it failed (pods, events, logs) rather than only that it timed out.
import { startCluster, type Cluster } from '../support/cluster.ts';
import { clusterImages, type ClusterImages } from '../support/cluster-images.ts';
import { stopAll } from '../support/process.ts';
import { diagnose, failOnCrashLoop, timeUntil } from './stack-support.ts';

/**
 * The long scenarios (`npm run test:cluster:long`, ETCDNS_LONG_SCENARIOS=1): a step that shows
 * again on a second engine what another suite shows in every run is skipped in the default
 * check, which keeps the CI inside its hour.
 */
export const LONG_SCENARIOS = process.env.ETCDNS_LONG_SCENARIOS === '1';

export interface StartedCluster {
  cluster: Cluster;
  images: ClusterImages;
}

/** For a suite's before hook: the images (built once per machine) on a new single-node cluster. */
export async function startSuiteCluster(figures: string[]): Promise<StartedCluster> {
  const images = clusterImages();
  const cluster = await startCluster({ images: images.archives });
  figures.push(`image build ${images.buildMs} ms`, `cluster start to Ready node ${cluster.startMs} ms`);
  return { cluster, images };
}

/**
 * For a suite's after hook. `stopFirst` stops what runs against the cluster (Flux, a secondary)
 * while the API server still answers it.
 */
export async function stopSuiteCluster(
  cluster: Cluster | undefined,
  figures: string[],
  ...stopFirst: (() => Promise<unknown> | undefined)[]
): Promise<void> {
  for (const stop of stopFirst) await stop();
  if (cluster) {
    const notes = await cluster.stop();
    console.log(`# teardown: ${notes.join('; ') || 'nothing left behind'}`);
  }
  await stopAll();
  console.log(`# figures: ${figures.join('; ')}`);
}

/** Runs `step`; a failure carries the namespace's pods, events and logs of pods not Ready. */
export async function diagnosed<T>(cluster: Cluster, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw new Error(`${(e as Error).message}\n${diagnose(cluster)}`, { cause: e });
  }
}

/**
 * Milliseconds until `up` (the first answer, every pod Ready) first holds after an apply, giving
 * up at once when a pod of the stack crash-loops.
 */
export function untilStackUp(
  cluster: Cluster,
  what: string,
  up: () => Promise<boolean>,
  o: { timeoutMs: number; intervalMs: number },
): Promise<number> {
  return diagnosed(cluster, () =>
    timeUntil(
      what,
      async () => {
        await failOnCrashLoop(cluster);
        return up();
      },
      o.timeoutMs,
      o.intervalMs,
    ),
  );
}
