// The import rules of the architecture, checked on every file: services talk only through
// generated gRPC clients, the edge knows services only through them, and the two surfaces (REST and
// MCP) stand on gateway/core without importing each other.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../services/kit/paths.js';

const SERVICES = ['identity', 'communities', 'search', 'enrichment', 'billing'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'gen' ? [] : sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Repository-relative targets of a file's relative imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+'(\.[^']+)'/g)].map((m) => relative(repoRoot, resolve(dirname(file), m[1]!)));
}

function violations(files: string[], forbidden: (target: string) => boolean): string[] {
  return files.flatMap((f) => importsOf(f).filter(forbidden).map((t) => `${relative(repoRoot, f)} → ${t}`));
}

describe('import rules', () => {
  it('a service never imports another service’s files, nor the edge', () => {
    for (const service of SERVICES) {
      const files = sourceFiles(join(repoRoot, 'services', service));
      const other = (t: string) =>
        t.startsWith('gateway/') || SERVICES.some((s) => s !== service && t.startsWith(`services/${s}/`));
      expect(violations(files, other), service).toEqual([]);
    }
  });

  it('the shared kit imports no service and no edge code', () => {
    const files = sourceFiles(join(repoRoot, 'services', 'kit'));
    expect(violations(files, (t) => t.startsWith('gateway/') || SERVICES.some((s) => t.startsWith(`services/${s}/`)))).toEqual([]);
  });

  it('the edge knows services only through generated clients and the shared kit', () => {
    const files = sourceFiles(join(repoRoot, 'gateway'));
    expect(violations(files, (t) => t.startsWith('services/') && !t.startsWith('services/kit/'))).toEqual([]);
  });

  it('the REST and MCP surfaces never import each other', () => {
    expect(violations(sourceFiles(join(repoRoot, 'gateway', 'rest')), (t) => t.startsWith('gateway/mcp/'))).toEqual([]);
    expect(violations(sourceFiles(join(repoRoot, 'gateway', 'mcp')), (t) => t.startsWith('gateway/rest/'))).toEqual([]);
    expect(violations(sourceFiles(join(repoRoot, 'gateway', 'core')), (t) => t.startsWith('gateway/rest/') || t.startsWith('gateway/mcp/'))).toEqual([]);
  });
});
