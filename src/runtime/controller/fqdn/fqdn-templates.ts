// external-dns's template flags, parsed once at start-up and run per object, with its rules
// (source/template/engine.go in v0.22):
// - each flag may be given several times; its values are joined with "," into one template, and
//   a value that does not parse (alone or with the ones before it) fails start-up naming it;
// - the output is split at ",", each piece trimmed and stripped of one trailing dot, empty pieces
//   dropped, the rest de-duplicated and sorted;
// - --fqdn-target-template writes "host:target" pairs; a pair without ":" or with an empty side
//   is skipped (external-dns logs it at debug);
// - the names a template makes are used when the object's own rules give none, or added to
//   them with --combine-fqdn-annotation.
// A template that fails on one object (a missing field given to a function, an index out of
// range) is that object's problem: external-dns stops the whole source on it.
import { executeTemplate } from './go-template-exec.ts';
import { parseTemplate, TemplateSyntaxError, type Node, type Pipe } from './go-template-parse.ts';
import { TemplateExecError } from './go-template-values.ts';
import type { TemplateData } from './template-data.ts';
import { FUNCTION_NAMES, isKnownSource, PRINTF_DIRECTIVE, unknownSource } from './template-functions.ts';

export interface TemplateFlags {
  fqdnTemplate: readonly string[];
  targetTemplate: readonly string[];
  fqdnTargetTemplate: readonly string[];
  combineFqdnAnnotation: boolean;
}

export const NO_TEMPLATES: TemplateFlags = {
  fqdnTemplate: [],
  targetTemplate: [],
  fqdnTargetTemplate: [],
  combineFqdnAnnotation: false,
};

export class TemplateConfigError extends Error {}

/** A host:target pair of --fqdn-target-template. */
export interface HostTarget {
  host: string;
  target: string;
}

export type TemplateResult<T> = { ok: true; value: T } | { ok: false; error: string };

type Parsed = Node[] | undefined;

export class FqdnTemplates {
  private readonly fqdn: Parsed;
  private readonly target: Parsed;
  private readonly fqdnTarget: Parsed;
  readonly combine: boolean;

  private constructor(fqdn: Parsed, target: Parsed, fqdnTarget: Parsed, combine: boolean) {
    this.fqdn = fqdn;
    this.target = target;
    this.fqdnTarget = fqdnTarget;
    this.combine = combine;
  }

  /** Parses the flags; a TemplateConfigError names the flag, the value and what is wrong. */
  static parse(flags: TemplateFlags): FqdnTemplates {
    return new FqdnTemplates(
      parseFlag('--fqdn-template', flags.fqdnTemplate),
      parseFlag('--target-template', flags.targetTemplate),
      parseFlag('--fqdn-target-template', flags.fqdnTargetTemplate),
      flags.combineFqdnAnnotation,
    );
  }

  /** Any template set: the object's own records may be replaced or added to. */
  get configured(): boolean {
    return this.fqdn !== undefined || this.target !== undefined || this.fqdnTarget !== undefined;
  }

  get hasFqdnTemplate(): boolean {
    return this.fqdn !== undefined;
  }

  /** A template that makes names (--fqdn-template or --fqdn-target-template). */
  get hasNameTemplate(): boolean {
    return this.fqdn !== undefined || this.fqdnTarget !== undefined;
  }

  /**
   * external-dns's CombineWithEndpoints: whether a template pass runs for an object whose own
   * rules gave `ownCount` records (none, or always when combining).
   */
  applies(ownCount: number): boolean {
    return this.configured && (this.combine || ownCount === 0);
  }

  /** --fqdn-template's names for the object (none when unset). */
  names(data: TemplateData, source: string): TemplateResult<string[]> {
    return run(this.fqdn, data, source, '--fqdn-template');
  }

  /** --target-template's targets for the object (none when unset). */
  targets(data: TemplateData, source: string): TemplateResult<string[]> {
    return run(this.target, data, source, '--target-template');
  }

  /** --fqdn-target-template's pairs, with the pieces it skips. */
  pairs(data: TemplateData, source: string): TemplateResult<{ pairs: HostTarget[]; skipped: string[] }> {
    const out = run(this.fqdnTarget, data, source, '--fqdn-target-template');
    if (!out.ok) return out;
    const pairs: HostTarget[] = [];
    const skipped: string[] = [];
    for (const piece of out.value) {
      const colon = piece.indexOf(':');
      const host = colon < 0 ? '' : piece.slice(0, colon).trim();
      const target = colon < 0 ? '' : piece.slice(colon + 1).trim();
      if (host && target) pairs.push({ host, target });
      else skipped.push(piece);
    }
    return { ok: true, value: { pairs, skipped } };
  }
}

function parseFlag(flag: string, values: readonly string[]): Parsed {
  // As external-dns validates: every prefix of the values, joined, must parse.
  for (let i = 0; i < values.length; i++) {
    try {
      check(parseTemplate(values.slice(0, i + 1).join(','), { functions: FUNCTION_NAMES }));
    } catch (e) {
      if (e instanceof TemplateSyntaxError)
        throw new TemplateConfigError(`${flag}[${i}] ${JSON.stringify(values[i])}: ${e.message}`);
      throw e;
    }
  }
  const joined = values.join(',');
  if (joined.trim() === '') return undefined;
  return parseTemplate(joined, { functions: FUNCTION_NAMES });
}

/** What Go would only find while running but a literal shows now: isSource's name, printf's verbs. */
function check(nodes: Node[]): void {
  const pipes = (n: Node): Pipe[] =>
    n.kind === 'action'
      ? [n.pipe]
      : n.kind === 'if' || n.kind === 'with' || n.kind === 'range'
        ? [n.pipe, ...[...n.list, ...(n.elseList ?? [])].flatMap(pipes)]
        : [];
  const visit = (pipe: Pipe): void => {
    for (const cmd of pipe.cmds) {
      const [head, first] = cmd.args;
      if (head?.kind === 'function' && first?.kind === 'string') {
        if (head.name === 'isSource' && !isKnownSource(first.value))
          throw new TemplateSyntaxError(unknownSource(first.value));
        if (head.name === 'printf') checkFormat(first.value);
      }
      for (const arg of cmd.args) if (arg.kind === 'pipe') visit(arg.pipe);
    }
  };
  nodes.flatMap(pipes).forEach(visit);
}

function checkFormat(format: string): void {
  for (const [directive] of format.matchAll(PRINTF_DIRECTIVE)) {
    if (directive !== '%%' && !/^%[vsdqtx]$/.test(directive))
      throw new TemplateSyntaxError(`printf verb "${directive}" is not supported (only %v %s %d %q %t %x %%)`);
  }
}

function run(nodes: Parsed, data: TemplateData, source: string, flag: string): TemplateResult<string[]> {
  if (!nodes) return { ok: true, value: [] };
  let text: string;
  try {
    text = executeTemplate(nodes, data.data, { source, typed: data.typed });
  } catch (e) {
    if (e instanceof TemplateExecError) return { ok: false, error: `${flag}: ${e.message}` };
    throw e;
  }
  const pieces = new Set<string>();
  for (const raw of text.split(',')) {
    let piece = raw.trim();
    if (piece.endsWith('.')) piece = piece.slice(0, -1);
    if (piece) pieces.add(piece);
  }
  return { ok: true, value: [...pieces].sort() };
}
