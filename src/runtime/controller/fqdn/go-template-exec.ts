// Runs a parsed template (go-template-parse.ts) against data, as Go's text/template executes:
// dot and $, variables scoped to their block, if/with/range with else, break and continue,
// pipelines passing their value as the last argument, and and/or evaluated lazily.
import type { Command, Node, Operand, Pipe } from './go-template-parse.ts';
import {
  fieldOf,
  formatValue,
  GoFloat,
  isMap,
  MISSING,
  printed,
  TemplateExecError,
  truth,
  type Value,
} from './go-template-values.ts';
import { callFunction, LAZY_FUNCTIONS, type CallContext } from './template-functions.ts';

type Signal = 'break' | 'continue' | undefined;

/** The text the template writes for `data`; a TemplateExecError says where Go would have failed. */
export function executeTemplate(nodes: Node[], data: Value, ctx: CallContext): string {
  const state = new State(data, ctx);
  state.walk(nodes, data);
  return state.out;
}

interface Variable {
  name: string;
  value: Value;
}

class State {
  out = '';
  private readonly vars: Variable[];
  private readonly ctx: CallContext;

  constructor(root: Value, ctx: CallContext) {
    this.vars = [{ name: '$', value: root }];
    this.ctx = ctx;
  }

  walk(nodes: Node[], dot: Value): Signal {
    for (const node of nodes) {
      const signal = this.walkOne(node, dot);
      if (signal) return signal;
    }
    return undefined;
  }

  private walkOne(node: Node, dot: Value): Signal {
    switch (node.kind) {
      case 'text':
        this.out += node.text;
        return undefined;
      case 'action': {
        const value = this.pipe(node.pipe, dot);
        if (node.pipe.decl.length === 0) this.out += printed(value);
        return undefined;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const value = this.pipe(node.pipe, dot);
        let signal: Signal;
        if (truth(value)) signal = this.walk(node.list, node.kind === 'with' ? value : dot);
        else if (node.elseList) signal = this.walk(node.elseList, dot);
        this.vars.length = mark;
        return signal;
      }
      case 'range':
        return this.range(node.pipe, node.list, node.elseList, dot);
      case 'break':
      case 'continue':
        return node.kind;
    }
  }

  private range(pipe: Pipe, list: Node[], elseList: Node[] | undefined, dot: Value): Signal {
    const mark = this.vars.length;
    const value = this.evalCommands(pipe.cmds, dot);
    const items: [Value, Value][] = [];
    if (Array.isArray(value)) value.forEach((v: Value, i: number) => items.push([i, v]));
    else if (typeof value === 'number' && Number.isInteger(value)) for (let i = 0; i < value; i++) items.push([i, i]);
    else if (isMap(value)) for (const k of Object.keys(value).sort()) items.push([k, value[k]!]);
    else if (value !== MISSING && value !== null)
      throw new TemplateExecError(`range can't iterate over ${formatValue(value)}`);
    let signal: Signal;
    for (const [key, item] of items) {
      const inner = this.vars.length;
      if (pipe.decl.length === 1) this.vars.push({ name: pipe.decl[0]!, value: item });
      if (pipe.decl.length === 2)
        this.vars.push({ name: pipe.decl[0]!, value: key }, { name: pipe.decl[1]!, value: item });
      signal = this.walk(list, item);
      this.vars.length = inner;
      if (signal === 'break') break;
    }
    signal = undefined;
    if (items.length === 0 && elseList) signal = this.walk(elseList, dot);
    this.vars.length = mark;
    return signal;
  }

  private pipe(pipe: Pipe, dot: Value): Value {
    const value = this.evalCommands(pipe.cmds, dot);
    if (pipe.isAssign) {
      const v = this.vars.findLast((x) => x.name === pipe.decl[0]);
      v!.value = value;
    } else {
      for (const name of pipe.decl) this.vars.push({ name, value });
    }
    return value;
  }

  private evalCommands(cmds: Command[], dot: Value): Value {
    let value: Value | undefined;
    for (const cmd of cmds) value = this.command(cmd, dot, value);
    return value!;
  }

  /** One command; `final` is the previous command's value, passed as the last argument. */
  private command(cmd: Command, dot: Value, final: Value | undefined): Value {
    const [head, ...rest] = cmd.args;
    if (head!.kind !== 'function') return this.operand(head!, dot);
    const name = head!.name;
    if (LAZY_FUNCTIONS.has(name)) {
      const thunks: (() => Value)[] = rest.map((a) => () => this.operand(a, dot));
      if (final !== undefined) thunks.push(() => final);
      if (thunks.length < 1) throw new TemplateExecError(`wrong number of args for ${name}: want at least 1 got 0`);
      let v: Value = MISSING;
      for (const thunk of thunks) {
        v = thunk();
        if (name === 'and' ? !truth(v) : truth(v)) return v;
      }
      return v;
    }
    const args = rest.map((a) => this.operand(a, dot));
    if (final !== undefined) args.push(final);
    return callFunction(name, args, this.ctx);
  }

  private operand(op: Operand, dot: Value): Value {
    switch (op.kind) {
      case 'dot':
        return dot;
      case 'field':
        return this.fields(dot, op.fields);
      case 'variable': {
        const v = this.vars.findLast((x) => x.name === op.name);
        return this.fields(v!.value, op.fields);
      }
      case 'pipe':
        return this.fields(this.evalCommands(op.pipe.cmds, dot), op.fields);
      case 'function':
        return callFunction(op.name, [], this.ctx);
      case 'string':
      case 'bool':
        return op.value;
      case 'number':
        return op.isFloat ? new GoFloat(op.value) : op.value;
      case 'nil':
        return null;
    }
  }

  private fields(receiver: Value, names: string[]): Value {
    return names.reduce((v, name) => fieldOf(v, name, this.ctx.typed), receiver);
  }
}
