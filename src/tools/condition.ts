// The `await` tool's condition language: parsed once to an AST, evaluated against a plain state snapshot.
// Pure: no clock, no store. Only parsing fails (as a value); evaluation is total — mismatched types compare false.

export type Literal = null | boolean | number | string;

/** `memory.<key>` / `memory["key"]`, optionally followed by one `.field`. */
export interface MemoryPath {
  type: 'memory';
  key: string;
  field?: string;
}

export type CompareOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type ConditionNode =
  | { type: 'literal'; value: Literal }
  | MemoryPath
  | { type: 'now' }
  | { type: 'plan'; field: 'done' | 'total' }
  | { type: 'exists'; path: MemoryPath }
  | { type: 'not'; operand: ConditionNode }
  | { type: 'and' | 'or'; left: ConditionNode; right: ConditionNode }
  | { type: 'compare'; op: CompareOp; left: ConditionNode; right: ConditionNode };

/** What a condition can see: the present memory keys it names, the clock, the caller's plan counts. */
export interface ConditionState {
  now_ms: number;
  plan: { done: number; total: number };
  memory: ReadonlyMap<string, unknown>;
}

/** A parse: the AST, or `<reason> at <column>` (1-based). */
export type ConditionParse = { ok: true; ast: ConditionNode } | { ok: false; error: string };

/** Longest condition text accepted. */
export const MAX_CONDITION_LENGTH = 2_000;
const MAX_NESTING = 32;

type Token =
  | { kind: 'num'; value: number; col: number }
  | { kind: 'str'; value: string; col: number }
  | { kind: 'ident'; value: string; col: number }
  | { kind: 'op'; value: string; col: number }
  | { kind: 'end'; col: number };

class ConditionSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly col: number,
  ) {
    super(reason);
  }
}

const TWO_CHAR = new Set(['==', '!=', '<=', '>=', '&&', '||']);
const ONE_CHAR = new Set(['<', '>', '!', '(', ')', '.', '[', ']']);
const LONE_HINT: Record<string, string> = { '=': 'use == to compare', '&': 'use && for "and"', '|': 'use || for "or"' };
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
const COMPARE_OPS = new Set<string>(['==', '!=', '<', '<=', '>', '>=']);

/** The string literal opening at `start`, decoded with JSON's escapes. */
function scanString(text: string, start: number): { value: string; end: number } {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  if (i >= text.length) throw new ConditionSyntaxError('unterminated string', start + 1);
  try {
    return { value: JSON.parse(text.slice(start, i + 1)) as string, end: i + 1 };
  } catch {
    throw new ConditionSyntaxError('invalid escape in string', start + 1);
  }
}

function scanAt(re: RegExp, text: string, at: number): string | null {
  re.lastIndex = at;
  return re.exec(text)?.[0] ?? null;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? '';
    const col = i + 1;
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"') {
      const { value, end } = scanString(text, i);
      tokens.push({ kind: 'str', value, col });
      i = end;
    } else if (/[-\d]/.test(ch) && scanAt(NUMBER, text, i) !== null) {
      const raw = scanAt(NUMBER, text, i) ?? '';
      tokens.push({ kind: 'num', value: Number(raw), col });
      i += raw.length;
    } else if (scanAt(IDENT, text, i) !== null) {
      const raw = scanAt(IDENT, text, i) ?? '';
      tokens.push({ kind: 'ident', value: raw, col });
      i += raw.length;
    } else if (TWO_CHAR.has(text.slice(i, i + 2))) {
      tokens.push({ kind: 'op', value: text.slice(i, i + 2), col });
      i += 2;
    } else if (ONE_CHAR.has(ch)) {
      tokens.push({ kind: 'op', value: ch, col });
      i++;
    } else {
      const hint = LONE_HINT[ch];
      throw new ConditionSyntaxError(hint ?? `unexpected character ${JSON.stringify(ch)}`, col);
    }
  }
  tokens.push({ kind: 'end', col: text.length + 1 });
  return tokens;
}

function describeToken(token: Token): string {
  if (token.kind === 'end') return 'end of condition';
  if (token.kind === 'str') return JSON.stringify(token.value);
  return `"${String(token.value)}"`;
}

/** Recursive descent over: or := and ('||' and)* · and := cmp ('&&' cmp)* · cmp := unary (op unary)? · unary. */
class Parser {
  private at = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  parse(): ConditionNode {
    const node = this.or();
    const next = this.peek();
    if (next.kind !== 'end') throw new ConditionSyntaxError(`unexpected ${describeToken(next)}`, next.col);
    return node;
  }

  private peek(): Token {
    return this.tokens[this.at] ?? { kind: 'end', col: 0 };
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at++;
    return token;
  }

  private isOp(value: string): boolean {
    const token = this.peek();
    return token.kind === 'op' && token.value === value;
  }

  private expectOp(value: string, after: string): void {
    const token = this.next();
    if (token.kind !== 'op' || token.value !== value) {
      throw new ConditionSyntaxError(`expected "${value}" ${after}, found ${describeToken(token)}`, token.col);
    }
  }

  private or(): ConditionNode {
    let left = this.and();
    while (this.isOp('||')) {
      this.next();
      left = { type: 'or', left, right: this.and() };
    }
    return left;
  }

  private and(): ConditionNode {
    let left = this.compare();
    while (this.isOp('&&')) {
      this.next();
      left = { type: 'and', left, right: this.compare() };
    }
    return left;
  }

  private compare(): ConditionNode {
    const left = this.unary();
    const op = this.peek();
    if (op.kind !== 'op' || !COMPARE_OPS.has(op.value)) return left;
    this.next();
    const right = this.unary();
    const after = this.peek();
    if (after.kind === 'op' && COMPARE_OPS.has(after.value)) {
      throw new ConditionSyntaxError('comparisons do not chain; join them with &&', after.col);
    }
    return { type: 'compare', op: op.value as CompareOp, left, right };
  }

  private unary(): ConditionNode {
    const token = this.peek();
    if (++this.depth > MAX_NESTING) throw new ConditionSyntaxError('condition nests too deeply', token.col);
    try {
      if (this.isOp('!')) {
        this.next();
        return { type: 'not', operand: this.unary() };
      }
      return this.primary();
    } finally {
      this.depth--;
    }
  }

  private primary(): ConditionNode {
    const token = this.next();
    if (token.kind === 'num' || token.kind === 'str') return { type: 'literal', value: token.value };
    if (token.kind === 'op' && token.value === '(') {
      const inner = this.or();
      this.expectOp(')', 'to close "("');
      return inner;
    }
    if (token.kind === 'ident') return this.named(token);
    throw new ConditionSyntaxError(`unexpected ${describeToken(token)}`, token.col);
  }

  private named(token: Extract<Token, { kind: 'ident' }>): ConditionNode {
    switch (token.value) {
      case 'true':
      case 'false':
        return { type: 'literal', value: token.value === 'true' };
      case 'null':
        return { type: 'literal', value: null };
      case 'now_ms':
        return { type: 'now' };
      case 'plan':
        return this.planField();
      case 'memory':
        return this.memoryPath();
      case 'exists': {
        this.expectOp('(', 'after exists');
        const path = this.next();
        if (path.kind !== 'ident' || path.value !== 'memory') {
          throw new ConditionSyntaxError('exists takes a memory path, like exists(memory.key)', path.col);
        }
        const node: ConditionNode = { type: 'exists', path: this.memoryPath() };
        this.expectOp(')', 'to close exists(');
        return node;
      }
      default:
        throw new ConditionSyntaxError(
          `unknown name "${token.value}" (use memory.<key>, plan.done, plan.total, now_ms or exists(...))`,
          token.col,
        );
    }
  }

  private planField(): ConditionNode {
    this.expectOp('.', 'after plan');
    const field = this.next();
    if (field.kind !== 'ident' || (field.value !== 'done' && field.value !== 'total')) {
      throw new ConditionSyntaxError('plan has only .done and .total', field.col);
    }
    return { type: 'plan', field: field.value };
  }

  private memoryPath(): MemoryPath {
    const open = this.next();
    let key: string;
    if (open.kind === 'op' && open.value === '[') {
      const name = this.next();
      if (name.kind !== 'str') throw new ConditionSyntaxError('expected a quoted key inside memory[...]', name.col);
      this.expectOp(']', 'after the key');
      key = name.value;
    } else if (open.kind === 'op' && open.value === '.') {
      const name = this.next();
      if (name.kind !== 'ident') throw new ConditionSyntaxError('expected a key after "memory."', name.col);
      key = name.value;
    } else {
      throw new ConditionSyntaxError('expected memory.<key> or memory["key"]', open.col);
    }
    if (!this.isOp('.')) return { type: 'memory', key };
    this.next();
    const field = this.next();
    if (field.kind !== 'ident') throw new ConditionSyntaxError('expected a field name after "."', field.col);
    if (this.isOp('.') || this.isOp('[')) {
      throw new ConditionSyntaxError('only one .field may follow a memory key', this.peek().col);
    }
    return { type: 'memory', key, field: field.value };
  }
}

/** Parses `text`; a failure is a value `<reason> at <col>`, never an exception. */
export function parseCondition(text: string): ConditionParse {
  if (text.length > MAX_CONDITION_LENGTH) {
    return { ok: false, error: `condition is longer than ${MAX_CONDITION_LENGTH} characters at 1` };
  }
  try {
    const tokens = tokenize(text);
    if (tokens.length === 1) return { ok: false, error: 'empty condition at 1' };
    return { ok: true, ast: new Parser(tokens).parse() };
  } catch (err) {
    if (err instanceof ConditionSyntaxError) return { ok: false, error: `${err.reason} at ${err.col}` };
    throw err;
  }
}

/** The distinct memory keys a condition reads, in first-use order (the caller loads only these). */
export function conditionKeys(ast: ConditionNode): string[] {
  const keys = new Set<string>();
  const visit = (node: ConditionNode): void => {
    if (node.type === 'memory') keys.add(node.key);
    else if (node.type === 'exists') keys.add(node.path.key);
    else if (node.type === 'not') visit(node.operand);
    else if (node.type === 'and' || node.type === 'or' || node.type === 'compare') {
      visit(node.left);
      visit(node.right);
    }
  };
  visit(ast);
  return [...keys];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a memory path, or undefined when the key (or field) is absent. */
function lookup(path: MemoryPath, state: ConditionState): unknown {
  if (!state.memory.has(path.key)) return undefined;
  const value = state.memory.get(path.key);
  if (path.field === undefined) return value;
  return isRecord(value) && Object.hasOwn(value, path.field) ? value[path.field] : undefined;
}

/** false, null, 0 and "" are unsatisfied; every other value (including [] and {}) satisfies. */
export function isSatisfied(value: unknown): boolean {
  return !(value === false || value === null || value === undefined || value === 0 || value === '');
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  if (!isRecord(a) || !isRecord(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}

function compareValues(op: CompareOp, left: unknown, right: unknown): boolean {
  if (op === '==') return jsonEqual(left, right);
  if (op === '!=') return !jsonEqual(left, right);
  const ordered =
    (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!ordered) return false;
  const [l, r] = [left as number | string, right as number | string];
  if (op === '<') return l < r;
  if (op === '<=') return l <= r;
  if (op === '>') return l > r;
  return l >= r;
}

/** Evaluates a parsed condition to a JSON value; an absent memory key or field reads as null. */
export function evaluateCondition(node: ConditionNode, state: ConditionState): unknown {
  switch (node.type) {
    case 'literal':
      return node.value;
    case 'memory':
      return lookup(node, state) ?? null;
    case 'now':
      return state.now_ms;
    case 'plan':
      return state.plan[node.field];
    case 'exists':
      return lookup(node.path, state) !== undefined;
    case 'not':
      return !isSatisfied(evaluateCondition(node.operand, state));
    case 'and':
      return isSatisfied(evaluateCondition(node.left, state)) && isSatisfied(evaluateCondition(node.right, state));
    case 'or':
      return isSatisfied(evaluateCondition(node.left, state)) || isSatisfied(evaluateCondition(node.right, state));
    case 'compare':
      return compareValues(node.op, evaluateCondition(node.left, state), evaluateCondition(node.right, state));
  }
}
