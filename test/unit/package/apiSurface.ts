// The public API report: every name src/index.ts exports and its signature, read from the emitted declarations
// (dist/src/index.d.ts) with the TypeScript checker, one block per name, sorted. Members inherited from types the
// package does not export are listed too, and so is every package type an export reaches (a field's type, a
// parameter's type, transitively): a change to any of them changes what a user sees.
import { dirname } from 'node:path';
import ts from 'typescript';

const FLAGS = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias;

function membersOf(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): string[] {
  const lines = checker.getPropertiesOfType(type).map((p) => {
    const optional = p.flags & ts.SymbolFlags.Optional ? '?' : '';
    const decl = p.declarations?.[0];
    const readonly = decl && ts.getCombinedModifierFlags(decl) & ts.ModifierFlags.Readonly ? 'readonly ' : '';
    const text = checker.typeToString(checker.getTypeOfSymbolAtLocation(p, at), at, FLAGS);
    return `  ${readonly}${p.name}${optional}: ${text};`;
  });
  for (const sig of type.getCallSignatures()) lines.push(`  ${checker.signatureToString(sig, at, FLAGS)};`);
  for (const sig of type.getConstructSignatures()) lines.push(`  new ${checker.signatureToString(sig, at, FLAGS)};`);
  return lines;
}

function resolved(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function describeSymbol(checker: ts.TypeChecker, exported: ts.Symbol, at: ts.Node): string {
  const symbol = resolved(checker, exported);
  const name = exported.name;
  const parts: string[] = [];
  if (symbol.flags & ts.SymbolFlags.Enum) {
    const members = checker
      .getExportsOfModule(symbol)
      .map((m) => `  ${m.name} = ${checker.getConstantValue(m.valueDeclaration as ts.EnumMember)},`);
    parts.push(`enum ${name} {`, ...members, '}');
  }
  if (symbol.flags & ts.SymbolFlags.Interface) {
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    const params = (type as ts.InterfaceType).typeParameters?.map((t) => checker.typeToString(t)) ?? [];
    const generic = params.length ? `<${params.join(', ')}>` : '';
    parts.push(`interface ${name}${generic} {`, ...membersOf(checker, type, at), '}');
  }
  if (symbol.flags & ts.SymbolFlags.TypeAlias) {
    parts.push(`type ${name} = ${checker.typeToString(checker.getDeclaredTypeOfSymbol(symbol), at, FLAGS)};`);
  }
  if (symbol.flags & ts.SymbolFlags.Class) {
    const instance = checker.getDeclaredTypeOfSymbol(symbol);
    const statics = checker.getTypeOfSymbolAtLocation(symbol, at);
    parts.push(`class ${name} {`, ...membersOf(checker, instance, at), ...membersOf(checker, statics, at), '}');
  } else if (symbol.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable)) {
    const type = checker.getTypeOfSymbolAtLocation(symbol, at);
    const kind = symbol.flags & ts.SymbolFlags.Function ? 'function' : 'const';
    parts.push(`${kind} ${name}: ${checker.typeToString(type, at, FLAGS)};`);
  }
  return parts.join('\n');
}

/** The symbol a type reference in a declaration names, or undefined for nodes that name none. */
function referencedSymbol(checker: ts.TypeChecker, node: ts.Node): ts.Symbol | undefined {
  if (ts.isTypeReferenceNode(node)) return checker.getSymbolAtLocation(node.typeName);
  if (ts.isExpressionWithTypeArguments(node)) return checker.getSymbolAtLocation(node.expression);
  if (ts.isTypeQueryNode(node)) return checker.getSymbolAtLocation(node.exprName);
  if (ts.isImportTypeNode(node)) {
    const type = checker.getTypeFromTypeNode(node);
    return type.aliasSymbol ?? type.getSymbol();
  }
  return undefined;
}

/**
 * The package's own named types (and values named by `typeof`) that the exports reach, transitively, by name:
 * those the exports themselves are excluded. Types from other packages (zod, Node) are named, not expanded.
 */
function reachedSymbols(checker: ts.TypeChecker, exported: ts.Symbol[], packageDir: string): ts.Symbol[] {
  const seen = new Set<ts.Symbol>(exported.map((s) => resolved(checker, s)));
  const reached: ts.Symbol[] = [];
  const queue = [...seen];
  const visit = (node: ts.Node): void => {
    const found = referencedSymbol(checker, node);
    if (found) {
      const symbol = resolved(checker, found);
      const ours = symbol.declarations?.some((d) => d.getSourceFile().fileName.startsWith(packageDir));
      if (ours && !(symbol.flags & ts.SymbolFlags.TypeParameter) && !seen.has(symbol)) {
        seen.add(symbol);
        reached.push(symbol);
        queue.push(symbol);
      }
    }
    ts.forEachChild(node, visit);
  };
  for (let next = queue.shift(); next; next = queue.shift()) {
    for (const decl of next.declarations ?? []) visit(decl);
  }
  return reached;
}

/** The report of the declarations at `indexDts`: a Markdown document with one code block. */
export function apiReport(indexDts: string): string {
  const program = ts.createProgram([indexDts], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(indexDts);
  if (!file) throw new Error(`api report: cannot read ${indexDts}`);
  const moduleSymbol = checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`api report: ${indexDts} is not a module`);
  const byName = (a: ts.Symbol, b: ts.Symbol) => a.name.localeCompare(b.name);
  const exported = checker.getExportsOfModule(moduleSymbol).sort(byName);
  const reached = reachedSymbols(checker, exported, dirname(indexDts)).sort(byName);
  const blocks = [
    ...exported.map((s) => describeSymbol(checker, s, file)),
    '// Types the exports reach (not exported by name, but part of what a user sees):',
    ...reached.map((s) => describeSymbol(checker, s, file)),
  ];
  const header = [
    '# API report: agentd',
    '',
    'Generated from `dist/src/index.d.ts` by test/unit/package/apiSurface.ts; do not edit by hand.',
    'Regenerate: `npm run api-report`.',
    '',
  ];
  // Types are named without the machine's paths (`import("/…/config/types").Config` → `Config`).
  const body = blocks.join('\n\n').replace(/import\("[^"]*"\)\./g, '');
  return `${[...header, '```ts', body, '```'].join('\n')}\n`;
}
