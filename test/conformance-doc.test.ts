// docs/CONFORMANCE.md against the suite: every test it cites (`file › describe › … › test`) names a
// file that exists and names that the file (or a local module it imports, where a shared suite
// declares its describes) gives a describe or a test, literally or through a template literal
// (`dependency outages, ${topology}`); and the summary's counts are the rows' own. A renamed or
// moved test fails here until its citation follows.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

const doc = readFileSync(join(repoRoot, 'docs', 'CONFORMANCE.md'), 'utf8');

/** The cells of a table line; `\|` is a `|` within a cell (GitHub's tables need it so even in code). */
function cells(line: string): string[] {
  const out: string[] = [];
  let cell = '';
  let fence = 0;
  for (let i = 0; i < line.length; ) {
    if (line[i] === '`') {
      let j = i;
      while (line[j] === '`') j++;
      if (fence === 0) fence = j - i;
      else if (fence === j - i) fence = 0;
      cell += line.slice(i, j);
      i = j;
    } else if (line.startsWith('\\|', i)) {
      cell += '|';
      i += 2;
    } else {
      if (line[i] === '|' && fence === 0) {
        out.push(cell.trim());
        cell = '';
      } else cell += line[i];
      i++;
    }
  }
  return out.slice(1);
}

interface Row { id: string; requirement: string; citations: string[] }

const rows: Row[] = doc
  .split('\n')
  .filter((line) => /^\| [A-Z]+-[A-Za-z0-9-]+ \|/.test(line))
  .map((line) => {
    const [id, requirement, tests] = cells(line);
    const citations = tests === '—' ? [] : tests!.split('<br>').map((c) => {
      const code = /^(?:groundwork: )?(`+) ?(.+?) ?\1$/.exec(c.trim());
      if (!code) throw new Error(`${id}: not a cited test: ${c}`);
      return code[2]!;
    });
    return { id: id!, requirement: requirement!, citations };
  });

const helpers = join(repoRoot, 'test', 'helpers');
const parsed = new Map<string, { names: Array<string | RegExp>; imports: string[] }>();

/** A file's string and template literals, and the test helpers it imports (parsed once). */
function literalsOf(file: string): { names: Array<string | RegExp>; imports: string[] } {
  let found = parsed.get(file);
  if (found) return found;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  found = { names: [], imports: [] };
  const { names, imports } = found;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) names.push(node.text);
    else if (ts.isTemplateExpression(node)) {
      names.push(new RegExp(`^${escape(node.head.text)}${node.templateSpans.map((s) => `.+${escape(s.literal.text)}`).join('')}$`));
    } else if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && node.moduleSpecifier.text.startsWith('.')) {
      const imported = join(dirname(file), node.moduleSpecifier.text.replace(/\.js$/, '.ts'));
      if (imported.startsWith(helpers) && existsSync(imported)) imports.push(imported);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  parsed.set(file, found);
  return found;
}

/** The literals of a test file and of the test helpers it reaches, where shared suites declare their describes. */
function namesOf(file: string, seen = new Set<string>()): Array<string | RegExp> {
  if (seen.has(file)) return [];
  seen.add(file);
  const { names, imports } = literalsOf(file);
  return [...names, ...imports.flatMap((i) => namesOf(i, seen))];
}

const namesByFile = new Map<string, Array<string | RegExp>>();
function unknownParts(citation: string): string[] {
  const [file, ...parts] = citation.split(' › ');
  const path = join(repoRoot, file!);
  if (!existsSync(path)) return [`no file ${relative(repoRoot, path)}`];
  if (!namesByFile.has(path)) namesByFile.set(path, namesOf(path));
  const names = namesByFile.get(path)!;
  return parts.filter((part) => !names.some((n) => (typeof n === 'string' ? n === part : n.test(part))));
}

describe('docs/CONFORMANCE.md', () => {
  it('has its rows, each with a one-line requirement, and unique ids', () => {
    expect(rows.length).toBeGreaterThan(250);
    expect(rows.filter((r) => r.requirement === '' || r.requirement.includes('<br>')).map((r) => r.id)).toEqual([]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('cites only tests that exist: each file, and each describe and test name in it', () => {
    const stale = rows.flatMap((r) => r.citations.flatMap((c) => unknownParts(c).map((part) => `${r.id}: ${c} — ${part}`)));
    expect(stale).toEqual([]);
  });

  it('cites a test for every covered rule, and gives every other its reason', () => {
    const gap = (r: Row) => /\*\*(Partly|Open \(#\d+\)):\*\* \S/.exec(r.requirement)?.[1];
    expect(rows.filter((r) => !gap(r) && r.citations.length === 0).map((r) => r.id)).toEqual([]);
    const counts = { covered: 0, partly: 0, open: 0 };
    for (const r of rows) counts[gap(r) === undefined ? 'covered' : gap(r) === 'Partly' ? 'partly' : 'open']++;
    expect(doc).toContain(`\n${rows.length} rows: ${counts.covered} covered, ${counts.partly} partly, ${counts.open} open.`);
    const listed = /Not covered in full \(the reason in each row\): ([^.]+)\./.exec(doc)?.[1]?.split(', ');
    expect(listed).toEqual(rows.filter((r) => gap(r)).map((r) => r.id));
  });
});
