// deploy/README.md documents how to build, run, deploy and scale the system.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir } from './helpers/deploy-files.js';

describe('deploy/README.md', () => {
  const readme = readFileSync(join(deployDir, 'README.md'), 'utf8');
  it('documents the build, the compose stack, applying to a cluster with migrations first, and scaling', () => {
    expect(readme).toContain('docker build -f deploy/Dockerfile');
    expect(readme).toContain('docker compose -f deploy/compose.yaml up');
    expect(readme).toContain('--load-restrictor LoadRestrictionsNone');
    expect(readme).toContain('expertnet/phase=pre-rollout');
    expect(readme).toContain('kubectl -n expertnet wait --for=condition=complete job/expertnet-migrate');
    expect(readme).toMatch(/## Scaling/);
  });
});
