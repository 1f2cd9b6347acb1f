// Exact client types from the served OpenAPI document: openapi-typescript generates them, and a
// small client (test/fixtures/typed-client/client.ts) must compile against them with no error while
// its `@ts-expect-error` lines (a wrong field, a wrong enum value, a missing requirement) stay
// errors. Spectral's `spectral:oas` ruleset finds nothing in the document either (Redocly's lint is
// in gateway/rest/openapi/openapi.test.ts).
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import Fastify from 'fastify';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_ERROR_CODES } from '../gateway/core/contract/schemas.js';
import openapiRoutes from '../gateway/rest/routes/v1/openapi.js';
import { repoRoot } from '../services/kit/paths.js';
import { SCOPES } from '../services/kit/scopes.js';

const CLIENT = join(repoRoot, 'test', 'fixtures', 'typed-client', 'client.ts');

/** The document as GET /v1/openapi.json serves it (the route itself, registered on a bare app). */
async function servedDocument(): Promise<string> {
  const app = Fastify();
  await app.register(openapiRoutes, { prefix: '/v1' });
  try {
    const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    return res.body;
  } finally {
    await app.close();
  }
}

/** Type-checks the files of a folder as one strict program; its diagnostics by file and line. */
function typeCheck(dir: string, files: string[]): { file: string; line: number; text: string }[] {
  const program = ts.createProgram(
    files.map((f) => join(dir, f)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts'],
      types: [],
      noUncheckedIndexedAccess: true,
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => ({
    file: d.file ? d.file.fileName.slice(dir.length + 1) : '',
    line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
    text: `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
  }));
}

const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b.*$/gm;

describe('client types generated from the served OpenAPI document (openapi-typescript)', () => {
  let served: string;
  let dir: string;
  let types: string;

  beforeAll(async () => {
    served = await servedDocument();
    dir = mkdtempSync(join(tmpdir(), 'en-typed-client-'));
    types = astToString(await openapiTS(JSON.parse(served)));
    writeFileSync(join(dir, 'api.d.ts'), types);
    copyFileSync(CLIENT, join(dir, 'client.ts'));
  }, 60_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('are generated from the document served, which is the committed docs/openapi.json', () => {
    expect(served).toBe(readFileSync(join(repoRoot, 'docs', 'openapi.json'), 'utf8'));
    expect(types).toContain('export interface paths');
  });

  it('type-check the client: right calls compile; each @ts-expect-error line stays an error, and is one without its directive', () => {
    // The same client with every directive blanked (lines kept in place) must fail exactly on the
    // lines the directives marked: the check is not vacuous.
    const source = readFileSync(CLIENT, 'utf8');
    writeFileSync(join(dir, 'unchecked.ts'), source.replace(DIRECTIVE, '//'));
    const diagnostics = typeCheck(dir, ['client.ts', 'unchecked.ts']);
    const show = (file: string) => diagnostics.filter((d) => d.file === file).map((d) => `${d.line} ${d.text}`);
    expect(show('client.ts')).toEqual([]);
    expect(show('api.d.ts')).toEqual([]);
    const marked = source.split('\n').flatMap((line, i) => (/^\s*\/\/ @ts-expect-error\b/.test(line) ? [i + 2] : []));
    expect(marked.length).toBeGreaterThanOrEqual(12);
    const failing = new Set(diagnostics.filter((d) => d.file === 'unchecked.ts').map((d) => d.line));
    expect(marked.filter((line) => !failing.has(line)), show('unchecked.ts').join('\n')).toEqual([]);
    expect(show('unchecked.ts').join('\n')).toMatch(/'include_teams' does not exist/);
  }, 120_000);

  it('type error.code as the documented codes plus any string (new codes may come within v1)', () => {
    const code = /\bcode: (\(.*\) \| string);/.exec(types)?.[1];
    expect(code, 'error.code in the generated types').toBeDefined();
    for (const known of DOCUMENTED_ERROR_CODES) expect(code).toContain(`"${known}"`);
  });

  it('declare the scopes on an oauth2 security scheme, each operation requiring its own', () => {
    const document = JSON.parse(served);
    const schemes = document.components.securitySchemes as Record<string, { type: string; flows?: Record<string, { scopes: Record<string, string> }> }>;
    const oauth = Object.values(schemes).filter((s) => s.type === 'oauth2');
    expect(oauth).toHaveLength(1);
    for (const flow of Object.values(oauth[0]!.flows!)) expect(Object.keys(flow.scopes).sort()).toEqual([...SCOPES].sort());
    const search = document.paths['/v1/search'].post;
    expect(search.security).toContainEqual({ oauth2: ['search:read'] });
  });
});

describe("Spectral's spectral:oas ruleset", () => {
  it('finds nothing in the served document', async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[oas as spectralCore.RulesetDefinition, 'recommended']] });
    const results = await spectral.run(new spectralCore.Document(await servedDocument(), spectralParsers.Json, 'openapi.json'));
    expect(results.map((r) => `${r.code}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 60_000);
});
