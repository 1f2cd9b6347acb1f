// The generated code is exactly what `npm run gen` makes from the .proto files, and the protos
// pass Buf's lint rules. A hand edit or a proto change without regenerating fails here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateInto, repoRoot } from './generate.js';

function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return out;
}

describe('internal contract', () => {
  it('proto/gen matches a fresh generation from the protos', () => {
    const fresh = filesUnder(generateInto(mkdtempSync(join(tmpdir(), 'en-gen-'))));
    const committed = filesUnder(join(repoRoot, 'proto', 'gen'));
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [name, content] of fresh) {
      expect(committed.get(name)?.equals(content), `${name} drifted: run npm run gen`).toBe(true);
    }
  });

  it('is clean under buf lint (STANDARD rules)', () => {
    const buf = join(repoRoot, 'node_modules', '.bin', 'buf');
    expect(() => execFileSync(buf, ['lint', 'proto'], { cwd: repoRoot, stdio: 'pipe' })).not.toThrow();
  });

  it('gives every service of the architecture a versioned package', () => {
    for (const service of ['identity', 'communities', 'search', 'enrichment', 'billing']) {
      const proto = readFileSync(join(repoRoot, 'proto', 'expertnet', service, 'v1', `${service}_service.proto`), 'utf8');
      expect(proto).toContain(`package expertnet.${service}.v1;`);
    }
  });
});
