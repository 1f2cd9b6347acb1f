// The system's processes all start with the same runtime flags (deploy/launcher/runtime-flags.ts):
// the npm scripts, written as text, carry each of them (the image's CMD: deploy-dockerfile.test.ts);
// the local topology and the benchmark spawn with the constant itself.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_FLAGS } from '../deploy/launcher/runtime-flags.js';
import { repoRoot } from '../services/kit/paths.js';

describe('runtime flags', () => {
  it('npm start, npm run start:prod and npm run bench (its enrichment run is in its own process) start node with every runtime flag', () => {
    const scripts = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
    for (const command of [scripts.start!, scripts['start:prod']!, scripts.bench!]) {
      expect(command).toMatch(/\bnode /);
      for (const flag of RUNTIME_FLAGS) expect(command.split(' ')).toContain(flag);
    }
  });

  it('this Node accepts every runtime flag', () => {
    const printed = execFileSync(process.execPath, [...RUNTIME_FLAGS, '-e', 'console.log("started")'], { encoding: 'utf8' });
    expect(printed.trim()).toBe('started');
  });
});
