// Every prop is documented and readonly, and every optional prop has an @default tag (a value, or
// "- what happens"), as construct libraries document props: read from the construct sources with
// the TypeScript parser, so a new undocumented or mutable prop fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { typeScriptFilesBelow } from '../support/module-imports.ts';

const dir = join(import.meta.dirname, '../../src/constructs');

function undocumented(): string[] {
  const missing: string[] = [];
  // Every folder below, so a construct moved into a subfolder is still read.
  for (const filePath of typeScriptFilesBelow(dir)) {
    const file = relative(dir, filePath);
    const source = ts.createSourceFile(file, readFileSync(filePath, 'utf8'), ts.ScriptTarget.Latest, true);
    const check = (members: ts.NodeArray<ts.TypeElement>, path: string) => {
      for (const member of members) {
        if (!ts.isPropertySignature(member)) continue;
        const name = `${path}.${member.name.getText(source)}`;
        const docs = ts
          .getJSDocCommentsAndTags(member)
          .map((d) => d.getText(source))
          .join(' ');
        if (!docs) missing.push(`${name}: no doc comment`);
        else if (member.questionToken && !ts.getJSDocTags(member).some((t) => t.tagName.text === 'default'))
          missing.push(`${name}: optional, but no @default tag`);
        if (!member.modifiers?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword))
          missing.push(`${name}: not readonly`);
        if (member.type && ts.isTypeLiteralNode(member.type)) check(member.type.members, name);
      }
    };
    source.forEachChild((node) => {
      if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith('Props'))
        check(node.members, `${file}: ${node.name.text}`);
    });
  }
  return missing;
}

test('every prop is documented and readonly, every optional one with an @default tag', () => {
  assert.deepEqual(undocumented(), []);
});
