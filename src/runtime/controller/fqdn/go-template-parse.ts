// The part of Go's text/template syntax that external-dns's template flags are documented and
// tested with, parsed into a tree. Everything else is refused here, at start-up, with an error
// naming the construct: a template that parses is one we run as Go would (go-template-exec.ts).
//
// Supported: text, {{ }} with the {{- -}} trim markers, comments, fields (.A.B), variables ($,
// $x, $x := / $x =, range's $i, $v :=), string (quoted and raw), number, bool and nil constants,
// pipelines (a | f b), parentheses with fields after them ((index .A 0).b), if / else if /
// else with / else, range (with else, break, continue), with.
// Refused: define, template, block, character constants, complex numbers, arguments given to a
// field or constant, and any function outside template-functions.ts (call, html, js, slice, ...).

export type Node = TextNode | ActionNode | IfNode | RangeNode | WithNode | BreakNode | ContinueNode;
export interface TextNode {
  kind: 'text';
  text: string;
}
/** {{ pipeline }}: prints the value unless the pipeline declares a variable. */
export interface ActionNode {
  kind: 'action';
  pipe: Pipe;
}
export interface IfNode {
  kind: 'if' | 'with';
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | undefined;
}
export type WithNode = IfNode;
export interface RangeNode {
  kind: 'range';
  pipe: Pipe;
  list: Node[];
  elseList: Node[] | undefined;
}
export interface BreakNode {
  kind: 'break';
}
export interface ContinueNode {
  kind: 'continue';
}

export interface Pipe {
  /** Declared ($x := ...) or assigned ($x = ...) variables. */
  decl: string[];
  isAssign: boolean;
  cmds: Command[];
  /** Where it starts in the template, for error messages. */
  pos: number;
}
export interface Command {
  args: Operand[];
}
export type Operand =
  | { kind: 'dot' }
  | { kind: 'field'; fields: string[] }
  | { kind: 'variable'; name: string; fields: string[] }
  | { kind: 'function'; name: string }
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number; isFloat: boolean }
  | { kind: 'bool'; value: boolean }
  | { kind: 'nil' }
  | { kind: 'pipe'; pipe: Pipe; fields: string[] };

export class TemplateSyntaxError extends Error {}

type TokenKind =
  | 'space'
  | 'identifier'
  | 'field'
  | 'variable'
  | 'dot'
  | 'declare'
  | 'assign'
  | 'pipe'
  | 'leftParen'
  | 'rightParen'
  | 'comma'
  | 'string'
  | 'rawString'
  | 'number'
  | 'char'
  | 'rightDelim';
interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

/** The pieces of a template: text, and the tokens of each action up to its right delimiter. */
type Piece = { kind: 'text'; text: string } | { kind: 'action'; tokens: Token[]; pos: number };

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'break', 'continue', 'define', 'template', 'block']);

/**
 * Splits the source into text and actions, applying the trim markers and dropping comments
 * (Go's lexer: "{{- " trims the space before, " -}}" the space after).
 */
function lex(src: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  let trimNext = false;
  while (i <= src.length) {
    const open = src.indexOf('{{', i);
    let text = src.slice(i, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open < 0) {
      if (text) pieces.push({ kind: 'text', text });
      break;
    }
    let j = open + 2;
    if (src.startsWith('- ', j) || src.startsWith('-\t', j) || src.startsWith('-\n', j) || src.startsWith('-\r', j)) {
      text = text.replace(/\s+$/, '');
      j += 1;
    }
    if (text) pieces.push({ kind: 'text', text });
    const body = skipSpace(src, j);
    if (src.startsWith('/*', body)) {
      const close = src.indexOf('*/', body + 2);
      if (close < 0) throw new TemplateSyntaxError('unclosed comment');
      const after = close + 2;
      const trimmed = /^\s-\}\}/.exec(src.slice(after));
      if (trimmed) {
        trimNext = true;
        i = after + trimmed[0].length;
      } else if (src.startsWith('}}', skipSpace(src, after)) && skipSpace(src, after) === after) {
        i = after + 2;
      } else {
        throw new TemplateSyntaxError('comment ends before closing delimiter');
      }
      continue;
    }
    const { tokens, end, trim } = lexAction(src, j);
    pieces.push({ kind: 'action', tokens, pos: open });
    trimNext = trim;
    i = end;
  }
  return pieces;
}

function skipSpace(src: string, i: number): number {
  while (i < src.length && /\s/.test(src[i]!)) i++;
  return i;
}

const IDENT_CHAR = /[\p{L}\p{N}_]/u;

function lexAction(src: string, start: number): { tokens: Token[]; end: number; trim: boolean } {
  const tokens: Token[] = [];
  let i = start;
  let parens = 0;
  for (;;) {
    if (i >= src.length) throw new TemplateSyntaxError('unclosed action');
    const c = src[i]!;
    if (/\s/.test(c)) {
      const s = i;
      i = skipSpace(src, i);
      // " -}}": the right trim marker.
      if (src.startsWith('-}}', i) && parens === 0) return { tokens, end: i + 3, trim: true };
      tokens.push({ kind: 'space', text: src.slice(s, i), pos: s });
      continue;
    }
    if (src.startsWith('}}', i)) {
      if (parens > 0) throw new TemplateSyntaxError('unclosed left paren');
      return { tokens, end: i + 2, trim: false };
    }
    const pos = i;
    if (c === '(') {
      parens++;
      tokens.push({ kind: 'leftParen', text: c, pos });
      i++;
    } else if (c === ')') {
      if (--parens < 0) throw new TemplateSyntaxError('unexpected right paren');
      tokens.push({ kind: 'rightParen', text: c, pos });
      i++;
    } else if (c === '|') {
      tokens.push({ kind: 'pipe', text: c, pos });
      i++;
    } else if (c === ',') {
      tokens.push({ kind: 'comma', text: c, pos });
      i++;
    } else if (c === ':' && src[i + 1] === '=') {
      tokens.push({ kind: 'declare', text: ':=', pos });
      i += 2;
    } else if (c === '=') {
      tokens.push({ kind: 'assign', text: c, pos });
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') j++;
        if (src[j] === '\n') throw new TemplateSyntaxError('unterminated quoted string');
        j++;
      }
      if (j >= src.length) throw new TemplateSyntaxError('unterminated quoted string');
      tokens.push({ kind: 'string', text: src.slice(i, j + 1), pos });
      i = j + 1;
    } else if (c === '`') {
      const j = src.indexOf('`', i + 1);
      if (j < 0) throw new TemplateSyntaxError('unterminated raw quoted string');
      tokens.push({ kind: 'rawString', text: src.slice(i, j + 1), pos });
      i = j + 1;
    } else if (c === "'") {
      const j = src.indexOf("'", i + 1);
      tokens.push({ kind: 'char', text: src.slice(i, j < 0 ? i + 1 : j + 1), pos });
      i = j < 0 ? src.length : j + 1;
    } else if (c === '$') {
      let j = i + 1;
      while (j < src.length && IDENT_CHAR.test(src[j]!)) j++;
      tokens.push({ kind: 'variable', text: src.slice(i, j), pos });
      i = j;
    } else if (c === '.' && !/[0-9]/.test(src[i + 1] ?? '')) {
      let j = i + 1;
      while (j < src.length && IDENT_CHAR.test(src[j]!)) j++;
      tokens.push({ kind: j === i + 1 ? 'dot' : 'field', text: src.slice(i, j), pos });
      i = j;
    } else if (/[0-9+\-.]/.test(c)) {
      const m =
        /^[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9]+)?)i?/.exec(
          src.slice(i),
        );
      if (!m || m[0] === '+' || m[0] === '-') throw new TemplateSyntaxError(`bad character ${JSON.stringify(c)}`);
      tokens.push({ kind: 'number', text: m[0], pos });
      i += m[0].length;
    } else if (IDENT_CHAR.test(c)) {
      let j = i;
      while (j < src.length && IDENT_CHAR.test(src[j]!)) j++;
      tokens.push({ kind: 'identifier', text: src.slice(i, j), pos });
      i = j;
    } else {
      throw new TemplateSyntaxError(`bad character ${JSON.stringify(c)}`);
    }
  }
}

export interface ParseOptions {
  /** Function names the template may call. */
  functions: ReadonlySet<string>;
}

/** The template's tree, or a TemplateSyntaxError naming what is wrong or not supported. */
export function parseTemplate(src: string, options: ParseOptions): Node[] {
  return new Parser(lex(src), options).parseAll();
}

type Terminator = 'end' | 'else';

class Parser {
  private at = 0;
  /** Variables in scope, innermost last; a block's declarations are dropped at its end. */
  private readonly vars: string[] = ['$'];
  private rangeDepth = 0;
  private readonly pieces: Piece[];
  private readonly options: ParseOptions;

  constructor(pieces: Piece[], options: ParseOptions) {
    this.pieces = pieces;
    this.options = options;
  }

  parseAll(): Node[] {
    const { list, terminator } = this.parseList();
    if (terminator) throw new TemplateSyntaxError(`unexpected {{${terminator}}}`);
    return list;
  }

  /** Nodes up to an {{end}} or {{else ...}} (returned with the tokens after "else"). */
  private parseList(): { list: Node[]; terminator?: Terminator; rest?: Token[] } {
    const list: Node[] = [];
    while (this.at < this.pieces.length) {
      const piece = this.pieces[this.at++]!;
      if (piece.kind === 'text') {
        list.push({ kind: 'text', text: piece.text });
        continue;
      }
      const tokens = piece.tokens.filter((t) => t.kind !== 'space');
      const first = tokens[0];
      if (!first) throw new TemplateSyntaxError('missing value for command');
      if (first.kind === 'identifier' && KEYWORDS.has(first.text)) {
        const word = first.text;
        if (word === 'end' || word === 'else') {
          if (word === 'end' && tokens.length > 1) throw new TemplateSyntaxError('unexpected tokens after {{end}}');
          return { list, terminator: word, rest: tokens.slice(1) };
        }
        list.push(this.parseKeyword(word, piece.tokens, piece.pos));
        continue;
      }
      list.push({ kind: 'action', pipe: this.parsePipe(piece.tokens, piece.pos, 'command') });
    }
    return { list };
  }

  private parseKeyword(word: string, tokens: Token[], pos: number): Node {
    const rest = dropFirstWord(tokens);
    switch (word) {
      case 'if':
      case 'with':
        return this.parseControl(word, rest, pos);
      case 'range':
        return this.parseRange(rest, pos);
      case 'break':
      case 'continue':
        if (this.rangeDepth === 0) throw new TemplateSyntaxError(`{{${word}}} outside {{range}}`);
        if (rest.some((t) => t.kind !== 'space')) throw new TemplateSyntaxError(`unexpected tokens after {{${word}}}`);
        return { kind: word };
      default:
        // define, template, block: named templates are not something a flag value needs.
        throw new TemplateSyntaxError(`'${word}' is not supported`);
    }
  }

  private parseControl(word: 'if' | 'with', tokens: Token[], pos: number): IfNode {
    const mark = this.vars.length;
    const pipe = this.parsePipe(tokens, pos, word);
    const body = this.parseList();
    this.vars.length = mark;
    let elseList: Node[] | undefined;
    if (body.terminator === 'else') {
      const rest = body.rest!;
      const chained = rest[0];
      if (chained?.kind === 'identifier' && (chained.text === 'if' || chained.text === 'with')) {
        // {{else if x}} / {{else with x}}: an if inside the else, sharing its {{end}}.
        const inner = this.parseControl(chained.text, dropFirstWord(rest), pos);
        elseList = [inner];
      } else {
        if (rest.length > 0) throw new TemplateSyntaxError('unexpected tokens after {{else}}');
        const tail = this.parseList();
        this.vars.length = mark;
        if (tail.terminator !== 'end') throw new TemplateSyntaxError(`unexpected EOF in {{${word}}}`);
        elseList = tail.list;
      }
    } else if (body.terminator !== 'end') {
      throw new TemplateSyntaxError(`unexpected EOF in {{${word}}}`);
    }
    return { kind: word, pipe, list: body.list, elseList };
  }

  private parseRange(tokens: Token[], pos: number): RangeNode {
    const mark = this.vars.length;
    const pipe = this.parsePipe(tokens, pos, 'range');
    this.rangeDepth++;
    const body = this.parseList();
    this.rangeDepth--;
    this.vars.length = mark;
    let elseList: Node[] | undefined;
    if (body.terminator === 'else') {
      if (body.rest!.length > 0) throw new TemplateSyntaxError('unexpected tokens after {{else}} in {{range}}');
      const tail = this.parseList();
      this.vars.length = mark;
      if (tail.terminator !== 'end') throw new TemplateSyntaxError('unexpected EOF in {{range}}');
      elseList = tail.list;
    } else if (body.terminator !== 'end') {
      throw new TemplateSyntaxError('unexpected EOF in {{range}}');
    }
    return { kind: 'range', pipe, list: body.list, elseList };
  }

  /** [$x :=] command | command ...; `context` is the action it belongs to. */
  private parsePipe(all: Token[], pos: number, context: 'command' | 'if' | 'with' | 'range'): Pipe {
    const tokens = all.filter((t) => t.kind !== 'space');
    const pipe: Pipe = { decl: [], isAssign: false, cmds: [], pos };
    let i = 0;
    // Declarations: "$x :=", "$x =", and in range "$i, $v :=".
    const v1 = tokens[0];
    if (v1?.kind === 'variable') {
      const next = tokens[1];
      if (next?.kind === 'declare' || next?.kind === 'assign') {
        pipe.decl = [v1.text];
        pipe.isAssign = next.kind === 'assign';
        i = 2;
      } else if (next?.kind === 'comma' && context === 'range') {
        const v2 = tokens[2];
        if (v2?.kind !== 'variable' || tokens[3]?.kind !== 'declare')
          throw new TemplateSyntaxError('range can only initialize variables');
        pipe.decl = [v1.text, v2.text];
        i = 4;
      } else if (next?.kind === 'comma') {
        throw new TemplateSyntaxError('too many declarations in command');
      }
    }
    if (pipe.isAssign) {
      if (!this.vars.includes(pipe.decl[0]!)) throw new TemplateSyntaxError(`undefined variable "${pipe.decl[0]}"`);
    }
    const cmds = this.parseCommands(tokens.slice(i));
    if (cmds.length === 0) throw new TemplateSyntaxError(`missing value for ${context}`);
    pipe.cmds = cmds;
    if (!pipe.isAssign) for (const v of pipe.decl) this.vars.push(v);
    return pipe;
  }

  /** Commands separated by "|", each a list of operands. */
  private parseCommands(tokens: Token[]): Command[] {
    const cmds: Command[] = [];
    let args: Operand[] = [];
    let i = 0;
    while (i < tokens.length) {
      const t = tokens[i]!;
      if (t.kind === 'pipe') {
        if (args.length === 0) throw new TemplateSyntaxError('missing command before "|"');
        cmds.push(this.checkCommand(args, cmds.length > 0));
        args = [];
        i++;
        continue;
      }
      const { operand, next } = this.parseOperand(tokens, i);
      args.push(operand);
      i = next;
    }
    if (args.length > 0) cmds.push(this.checkCommand(args, cmds.length > 0));
    else if (cmds.length > 0) throw new TemplateSyntaxError('missing command after "|"');
    return cmds;
  }

  /** What Go would only find out while running: arguments given to something that is not a function. */
  private checkCommand(args: Operand[], piped: boolean): Command {
    const head = args[0]!;
    if (head.kind !== 'function' && (args.length > 1 || piped)) {
      throw new TemplateSyntaxError(`${describe(head)} is not a function and cannot take arguments`);
    }
    if (head.kind === 'nil') throw new TemplateSyntaxError('nil is not a command');
    return { args };
  }

  private parseOperand(tokens: Token[], i: number): { operand: Operand; next: number } {
    const t = tokens[i]!;
    let operand: Operand;
    const next = i + 1;
    switch (t.kind) {
      case 'dot':
        operand = { kind: 'dot' };
        break;
      case 'field': {
        const { fields, next: after } = chainedFields(tokens, next, t);
        return { operand: { kind: 'field', fields: [t.text.slice(1), ...fields] }, next: after };
      }
      case 'variable': {
        if (!this.vars.includes(t.text)) throw new TemplateSyntaxError(`undefined variable "${t.text}"`);
        const { fields, next: after } = chainedFields(tokens, next, t);
        return { operand: { kind: 'variable', name: t.text, fields }, next: after };
      }
      case 'identifier':
        if (t.text === 'true' || t.text === 'false') operand = { kind: 'bool', value: t.text === 'true' };
        else if (t.text === 'nil') operand = { kind: 'nil' };
        else if (KEYWORDS.has(t.text)) throw new TemplateSyntaxError(`unexpected keyword '${t.text}' in operand`);
        else if (!this.options.functions.has(t.text))
          throw new TemplateSyntaxError(`function "${t.text}" is not supported`);
        else operand = { kind: 'function', name: t.text };
        break;
      case 'string':
        operand = { kind: 'string', value: unquote(t.text) };
        break;
      case 'rawString':
        operand = { kind: 'string', value: t.text.slice(1, -1).replace(/\r/g, '') };
        break;
      case 'number':
        operand = parseNumber(t.text);
        break;
      case 'char':
        throw new TemplateSyntaxError(`character constant ${t.text} is not supported`);
      case 'leftParen': {
        let depth = 1;
        let j = i + 1;
        while (j < tokens.length && depth > 0) {
          if (tokens[j]!.kind === 'leftParen') depth++;
          if (tokens[j]!.kind === 'rightParen') depth--;
          j++;
        }
        if (depth > 0) throw new TemplateSyntaxError('unclosed left paren');
        const inner = tokens.slice(i + 1, j - 1);
        const pipe: Pipe = { decl: [], isAssign: false, cmds: this.parseCommands(inner), pos: t.pos };
        if (pipe.cmds.length === 0) throw new TemplateSyntaxError('missing value for parenthesized pipeline');
        const { fields, next: after } = chainedFields(tokens, j, tokens[j - 1]!);
        return { operand: { kind: 'pipe', pipe, fields }, next: after };
      }
      default:
        throw new TemplateSyntaxError(`unexpected "${t.text}" in operand`);
    }
    if (tokens[next]?.kind === 'field' && tokens[next]!.pos === t.pos + t.text.length) {
      throw new TemplateSyntaxError(`unexpected ${tokens[next]!.text} after ${describe(operand)}`);
    }
    return { operand, next };
  }
}

/** The fields written right after a variable or a closing parenthesis ($x.a.b, (pipe).a). */
function chainedFields(tokens: Token[], next: number, prev: Token): { fields: string[]; next: number } {
  const fields: string[] = [];
  let end = prev.pos + prev.text.length;
  while (tokens[next]?.kind === 'field' && tokens[next]!.pos === end) {
    fields.push(tokens[next]!.text.slice(1));
    end += tokens[next]!.text.length;
    next++;
  }
  return { fields, next };
}

function dropFirstWord(tokens: Token[]): Token[] {
  const i = tokens.findIndex((t) => t.kind !== 'space');
  return tokens.slice(i + 1).filter((t) => t.kind !== 'space');
}

function describe(op: Operand): string {
  switch (op.kind) {
    case 'field':
      return `.${op.fields.join('.')}`;
    case 'variable':
      return [op.name, ...op.fields].join('.');
    case 'string':
      return JSON.stringify(op.value);
    case 'number':
    case 'bool':
      return String(op.value);
    case 'pipe':
      return 'a parenthesized pipeline';
    default:
      return op.kind;
  }
}

function parseNumber(text: string): Operand {
  if (/i$/.test(text)) throw new TemplateSyntaxError(`complex number ${text} is not supported`);
  const clean = text.replace(/_/g, '');
  const isFloat = !/^[+-]?0[xXbBoO]/.test(clean) && /[.eE]/.test(clean);
  const sign = clean.startsWith('-') ? -1 : 1;
  const unsigned = clean.replace(/^[+-]/, '');
  let value: number;
  if (/^0[oO]/.test(unsigned)) value = parseInt(unsigned.slice(2), 8);
  else if (/^0[0-7]+$/.test(unsigned)) value = parseInt(unsigned, 8);
  else value = Number(unsigned);
  if (!Number.isFinite(value)) throw new TemplateSyntaxError(`bad number syntax: ${JSON.stringify(text)}`);
  return { kind: 'number', value: sign * value, isFloat };
}

/** A Go interpreted string literal's value. */
function unquote(text: string): string {
  const body = text.slice(1, -1);
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'v':
        return '\v';
      case '\\':
      case '"':
        return e;
      case 'x':
      case 'u':
      case 'U':
        return String.fromCodePoint(parseInt(e.slice(1), 16));
      default:
        if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
        throw new TemplateSyntaxError(`invalid escape \\${e} in quoted string`);
    }
  });
}
