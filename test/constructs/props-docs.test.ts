// Every prop is documented, and every optional prop says what its default is: read from the
// construct sources with the TypeScript parser, so a new undocumented prop fails here.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const dir = join(import.meta.dirname, '../../src/constructs');

function undocumented(): string[] {
  const missing: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.Latest, true);
    const check = (members: ts.NodeArray<ts.TypeElement>, path: string) => {
      for (const member of members) {
        if (!ts.isPropertySignature(member)) continue;
        const name = `${path}.${member.name.getText(source)}`;
        const docs = ts
          .getJSDocCommentsAndTags(member)
          .map((d) => d.getText(source))
          .join(' ');
        if (!docs) missing.push(`${name}: no doc comment`);
        else if (member.questionToken && !/default/i.test(docs))
          missing.push(`${name}: optional, but no default given`);
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

test('every prop is documented with its default', () => {
  assert.deepEqual(undocumented(), []);
});
