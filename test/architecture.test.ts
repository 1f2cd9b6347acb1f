// The layering rules of .dependency-cruiser.cjs, checked on the product code by dependency-cruiser:
// no import circles; a service imports no other service's files and no gateway file; the gateway
// imports only the kit and generated code from services/ and proto/; the kit imports no service and
// no gateway file; REST and MCP never import each other; nothing but deploy/ imports deploy/ (the
// launcher). A fixture tree that breaks each rule once shows that every rule can fail.
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

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
