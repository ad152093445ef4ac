// The example environments `npm run synth` writes, by folder name under dist/.
import type { DnsStackProps } from '../constructs/dns-stack.ts';
import { dev } from './dev.ts';
import { prod } from './prod.ts';
import { staging } from './staging.ts';

export const ENVIRONMENTS: Record<string, DnsStackProps> = { dev, prod, staging };
