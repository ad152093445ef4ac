// A module's imports as the TypeScript parser reads them, for the tests that keep the source
// tree's boundaries (the DNS server's rooms, the runtime's folders, the construct library):
// static imports, re-exports and `import('...')` with a literal, each marked type-only when it
// is `import type` or `export type` (erased: it loads nothing, though it still names a dependency).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export interface ModuleImport {
  specifier: string;
  typeOnly: boolean;
}

export function moduleImports(file: string): ModuleImport[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: ModuleImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly ?? false });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    )
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every `.ts` file below `dir`, in every subfolder, sorted. */
export function typeScriptFilesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
    .sort();
}

/** The folders directly below `dir`, sorted. */
export function foldersIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/**
 * The arrows of `allowed` (folder -> the folders it may import) that do not point to a lower
 * layer, as "from -> to"; `layers` lists the folders' layers top first.
 */
export function arrowsNotDown<F extends string>(
  layers: readonly (readonly F[])[],
  allowed: Readonly<Record<F, readonly F[]>>,
): string[] {
  const layerOf = (folder: F) => layers.findIndex((layer) => layer.includes(folder));
  return (Object.keys(allowed) as F[]).flatMap((from) =>
    allowed[from].filter((to) => layerOf(to) <= layerOf(from)).map((to) => `${from} -> ${to}`),
  );
}
