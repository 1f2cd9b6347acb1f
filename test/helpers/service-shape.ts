// The shape every service shares (README "A service's shape"), read off a services/ folder: each
// service folder but kit/ holds `<name>.service.ts`, `<name>-context.ts` and one message mapping,
// `<name>-messages.ts`; and the service file stays thin — one create function that binds short
// handlers, no SQL, no store calls and no repository of its own. Read with the TypeScript parser,
// so formatting does not matter.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** A thin service file is well under this; communities, with 23 RPCs and their access map, is ~165. */
export const SERVICE_FILE_MAX_LINES = 200;
/** A handler calls a domain module and maps the result: a few lines, braces included. */
export const HANDLER_MAX_LINES = 8;

const SQL = /\b(SELECT\s[\s\S]*?\sFROM|INSERT\s+INTO|UPDATE\s+[\w.]+\s+SET|DELETE\s+FROM)\b/;
const STORE_CALL = /\.(query|transaction)\s*[<(]/;

const pascal = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _dash, c: string) => c.toUpperCase());

/** The service folders of a services/ folder: every folder but the kit. */
export function serviceFolders(servicesDir: string): string[] {
  return readdirSync(servicesDir)
    .filter((name) => name !== 'kit' && statSync(join(servicesDir, name)).isDirectory())
    .sort();
}

/** What is wrong with the shape of one service file's text (empty when it is thin). */
function thinnessProblems(name: string, text: string): string[] {
  const file = `${name}/${name}.service.ts`;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const problems: string[] = [];

  const lines = text.split('\n').length;
  if (lines > SERVICE_FILE_MAX_LINES) problems.push(`${file}: ${lines} lines (at most ${SERVICE_FILE_MAX_LINES})`);
  if (SQL.test(text)) problems.push(`${file}: holds SQL (it belongs in a *.repository.ts)`);
  if (STORE_CALL.test(text)) problems.push(`${file}: calls the store (a domain module or repository does)`);

  const functions: string[] = [];
  let handlers = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /\.repository\.js$/.test(node.moduleSpecifier.text)) {
      problems.push(`${file}: imports ${node.moduleSpecifier.text} (repositories are reached through ${name}-context.ts)`);
    }
    if (ts.isFunctionDeclaration(node)) functions.push(node.name?.text ?? '(anonymous)');
    if (ts.isVariableDeclaration(node) && node.name.getText() === 'implementation' && node.initializer && ts.isObjectLiteralExpression(node.initializer)) {
      for (const handler of node.initializer.properties) {
        handlers += 1;
        const span = lineOf(handler.getEnd()) - lineOf(handler.getStart()) + 1;
        if (span > HANDLER_MAX_LINES) problems.push(`${file}: handler ${ts.getNameOfDeclaration(handler)?.getText()} is ${span} lines (at most ${HANDLER_MAX_LINES})`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);

  const create = `create${pascal(name)}Service`;
  if (functions.join() !== create) problems.push(`${file}: declares functions ${functions.join(', ') || 'none'} (only ${create})`);
  if (handlers === 0) problems.push(`${file}: binds no handlers (an \`implementation\` object of RPC handlers)`);
  return problems;
}

/** Every way the services under servicesDir break the shape, one line each. */
export function serviceShapeProblems(servicesDir: string): string[] {
  return serviceFolders(servicesDir).flatMap((name) => {
    const dir = join(servicesDir, name);
    const problems: string[] = [];
    for (const required of [`${name}.service.ts`, `${name}-context.ts`, `${name}-messages.ts`]) {
      if (!existsSync(join(dir, required))) problems.push(`${name}/: has no ${required}`);
    }
    for (const other of readdirSync(dir).filter((f) => f.endsWith('-messages.ts') && f !== `${name}-messages.ts`)) {
      problems.push(`${name}/${other}: a second message mapping (fold it into ${name}-messages.ts)`);
    }
    const serviceFile = join(dir, `${name}.service.ts`);
    if (existsSync(serviceFile)) problems.push(...thinnessProblems(name, readFileSync(serviceFile, 'utf8')));
    return problems;
  });
}
