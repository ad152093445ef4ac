// The example environments `npm run synth` writes, by folder name under dist/: DnsStacks, and the
// spokes (SpokeStacks) of the hub among them, so one repository holds every cluster's folder.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import type { SpokeStackProps } from '../constructs/spoke-stack.ts';
import { synthSpokeStack, synthStack } from '../constructs/synth-stack.ts';
import { dev } from './dev.ts';
import { hub } from './hub.ts';
import { prod } from './prod.ts';
import { spokeDc1 } from './spoke-dc1.ts';
import { staging } from './staging.ts';

export const ENVIRONMENTS: Record<string, DnsStackProps> = { dev, hub, prod, staging };

export const SPOKE_ENVIRONMENTS: Record<string, SpokeStackProps> = { 'spoke-dc1': spokeDc1 };

/** Each environment's GitOps files, by folder name: a DnsStack's or a spoke's. */
export const ENVIRONMENT_FILES: Record<string, () => Map<string, string>> = {
  ...Object.fromEntries(Object.entries(ENVIRONMENTS).map(([n, props]) => [n, () => synthStack(props)])),
  ...Object.fromEntries(Object.entries(SPOKE_ENVIRONMENTS).map(([n, props]) => [n, () => synthSpokeStack(props)])),
};
