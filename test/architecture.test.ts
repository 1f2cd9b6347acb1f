// The layering rules of .dependency-cruiser.cjs, checked on the product code by dependency-cruiser:
// no import circles; a service imports no other service's files and no gateway file; the gateway
// imports only the kit and generated code from services/ and proto/; the kit imports no service and
// no gateway file; REST and MCP never import each other; nothing but deploy/ imports deploy/ (the
// launcher). A fixture tree that breaks each rule once shows that every rule can fail.
//
// And the shape every service shares (test/helpers/service-shape.ts): each service folder holds a
// thin `<name>.service.ts`, `<name>-context.ts` and one `<name>-messages.ts`; a services/ tree
// written for the test breaks each of those rules once.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';
import { HANDLER_MAX_LINES, SERVICE_FILE_MAX_LINES, serviceFolders, serviceShapeProblems } from './helpers/service-shape.js';

const PRODUCT_FOLDERS = ['gateway', 'services', 'deploy', 'proto'];

/** The violations of cruising `folders` under `baseDir` with the project's rules. */
async function violationsOf(baseDir: string, folders: string[]): Promise<IViolation[]> {
  const options = await extractDepcruiseOptions(join(repoRoot, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(join(repoRoot, 'tsconfig.json'));
  const { output } = await cruise(folders, { ...options, baseDir, validate: true, outputType: 'json' }, {}, { tsConfig });
  const result = (typeof output === 'string' ? JSON.parse(output) : output) as ICruiseResult;
  expect(result.summary.totalCruised, 'files cruised').toBeGreaterThan(0);
  return result.summary.violations;
}

/** One line per violation: the rule, and the import (or the whole circle) that breaks it. */
function readable(v: IViolation): string {
  const path = v.cycle ? [v.from, ...v.cycle.map((step) => step.name)].join(' → ') : `${v.from} → ${v.to}`;
  return `${v.rule.name}: ${path}`;
}

describe('layering rules (dependency-cruiser)', () => {
  it('hold on every product file: gateway/, services/, deploy/, proto/', async () => {
    const violations = await violationsOf(repoRoot, PRODUCT_FOLDERS);
    expect(violations.map(readable)).toEqual([]);
  });

  it('catch each kind of bad import (a fixture tree that breaks every rule once)', async () => {
    const violations = await violationsOf(join(repoRoot, 'test', 'fixtures', 'layering'), ['gateway', 'services', 'deploy']);
    const found = new Set(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`));
    expect([...found].sort()).toEqual([
      'gateway-to-service-internals: gateway/handler.ts → services/identity/secret.ts',
      'kit-to-service-or-gateway: services/kit/clock.ts → gateway/handler.ts',
      'no-circular: services/search/ranker.ts → services/search/weights.ts',
      'nothing-imports-deploy: gateway/handler.ts → deploy/entry.ts',
      'service-to-gateway: services/identity/grant.ts → gateway/handler.ts',
      'service-to-other-service: services/search/ranker.ts → services/identity/secret.ts',
      'surfaces-apart: gateway/rest/route.ts → gateway/mcp/tool.ts',
    ]);
  });
});

/** A thin service file of `name` binding these handlers (each `lines` long), with extra text. */
function serviceFile(name: string, handlers: number, lines = 3, extra = ''): string {
  const create = `create${name[0]!.toUpperCase()}${name.slice(1)}Service`;
  const body = (i: number) => [`    async rpc${i}() {`, ...Array.from({ length: lines - 2 }, () => `      await Promise.resolve();`), `    },`];
  const handlerLines = Array.from({ length: handlers }, (_, i) => body(i)).flat();
  return [extra, `export function ${create}() {`, `  const implementation = {`, ...handlerLines, `  };`, `  return { implementation };`, `}`, ''].join('\n');
}

describe('service shape', () => {
  it('every service folder but kit/ has <name>.service.ts, <name>-context.ts and <name>-messages.ts, and its service file is thin', () => {
    const services = join(repoRoot, 'services');
    expect(serviceFolders(services)).toEqual(expect.arrayContaining(['billing', 'communities', 'enrichment', 'identity', 'search']));
    expect(serviceShapeProblems(services)).toEqual([]);
  });

  it('catches a service that loses the shape (a services/ tree that breaks each rule once)', () => {
    const root = mkdtempSync(join(tmpdir(), 'service-shape-'));
    const write = (path: string, text: string) => {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    try {
      // The kit is not a service; a complete, thin service passes.
      write('kit/config.ts', 'export const x = 1;\n');
      for (const f of ['good/good-context.ts', 'good/good-messages.ts']) write(f, 'export {};\n');
      write('good/good.service.ts', serviceFile('good', 3));
      // No context, no messages, and a second mapping module.
      write('bare/bare.service.ts', serviceFile('bare', 1));
      write('bare/run-messages.ts', 'export {};\n');
      // Every way a service file grows fat.
      for (const f of ['fat/fat-context.ts', 'fat/fat-messages.ts']) write(f, 'export {};\n');
      const fat = [
        "import { createRunsRepository } from './runs.repository.js';",
        'function toJob() { return createRunsRepository; }',
        'const sql = `SELECT id FROM search.jobs WHERE id = $1`;',
        'export const rows = (db: { query(s: string): unknown }) => db.query(sql);',
        ...Array.from({ length: SERVICE_FILE_MAX_LINES }, (_, i) => `// line ${i}`),
      ].join('\n');
      const fatService = serviceFile('fat', 1, HANDLER_MAX_LINES + 1, fat);
      write('fat/fat.service.ts', fatService);
      // A service file that binds nothing.
      for (const f of ['empty/empty-context.ts', 'empty/empty-messages.ts']) write(f, 'export {};\n');
      write('empty/empty.service.ts', 'export function createEmptyService() {\n  return {};\n}\n');

      expect(serviceShapeProblems(root)).toEqual([
        'bare/: has no bare-context.ts',
        'bare/: has no bare-messages.ts',
        'bare/run-messages.ts: a second message mapping (fold it into bare-messages.ts)',
        'empty/empty.service.ts: binds no handlers (an `implementation` object of RPC handlers)',
        `fat/fat.service.ts: ${fatService.split('\n').length} lines (at most ${SERVICE_FILE_MAX_LINES})`,
        'fat/fat.service.ts: holds SQL (it belongs in a *.repository.ts)',
        'fat/fat.service.ts: calls the store (a domain module or repository does)',
        'fat/fat.service.ts: imports ./runs.repository.js (repositories are reached through fat-context.ts)',
        `fat/fat.service.ts: handler rpc0 is ${HANDLER_MAX_LINES + 1} lines (at most ${HANDLER_MAX_LINES})`,
        'fat/fat.service.ts: declares functions toJob, createFatService (only createFatService)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
