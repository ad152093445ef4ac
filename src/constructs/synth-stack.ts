// Synthesizes one environment's DnsStack into its GitOps files, in memory. Name hashes are off:
// every object carries the explicit name the stack gives it.
import { App, Chart } from 'cdk8s';
import { DnsStack, type DnsStackProps } from './dns-stack.ts';
import { manifestFiles, type ManifestObject } from './manifest-files.ts';

export function synthObjects(props: DnsStackProps): ManifestObject[] {
  const app = new App();
  const chart = new Chart(app, 'etcdns', { disableResourceNameHashes: true });
  new DnsStack(chart, 'stack', props);
  return chart.toJson() as ManifestObject[];
}

export function synthStack(props: DnsStackProps): Map<string, string> {
  return manifestFiles(synthObjects(props));
}
