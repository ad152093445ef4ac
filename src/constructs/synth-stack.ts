// Synthesizes one environment's DnsStack into its GitOps files, in memory. Name hashes are off:
// every object carries the explicit name the stack gives it.
import { App, Chart } from 'cdk8s';
import { DnsStack, type DnsStackProps } from './dns-stack.ts';
import { manifestFiles, type ManifestObject } from './output/manifest-files.ts';
import { SpokeStack, type SpokeStackProps } from './spoke-stack.ts';

export function synthObjects(props: DnsStackProps): ManifestObject[] {
  const chart = new Chart(new App(), 'etcdns', { disableResourceNameHashes: true });
  new DnsStack(chart, 'stack', props);
  return chart.toJson() as ManifestObject[];
}

/** A member cluster's SpokeStack, as synthObjects a DnsStack. */
export function synthSpokeObjects(props: SpokeStackProps): ManifestObject[] {
  const chart = new Chart(new App(), 'etcdns', { disableResourceNameHashes: true });
  new SpokeStack(chart, 'stack', props);
  return chart.toJson() as ManifestObject[];
}

export function synthStack(props: DnsStackProps): Map<string, string> {
  return manifestFiles(synthObjects(props));
}

export function synthSpokeStack(props: SpokeStackProps): Map<string, string> {
  return manifestFiles(synthSpokeObjects(props));
}
