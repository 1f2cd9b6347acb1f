// docs/GRPC.md's reference part is what `npm run grpc-reference` makes from the protos: a proto
// change (or a hand edit of the page's reference) without rewriting it fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REFERENCE_END, REFERENCE_START, referenceFromRepo } from './grpc-reference.js';
import { repoRoot } from './generate.js';

describe('docs/GRPC.md reference', () => {
  const page = readFileSync(join(repoRoot, 'docs', 'GRPC.md'), 'utf8');
  const reference = referenceFromRepo(repoRoot);

  it('matches a fresh generation from the protos (npm run grpc-reference)', () => {
    const committed = page.slice(page.indexOf(REFERENCE_START), page.indexOf(REFERENCE_END) + REFERENCE_END.length);
    expect(committed).toBe(reference);
  });

  it('lists every RPC the protos mark @public, and no other', () => {
    const listed = [...reference.matchAll(/^- \*\*`(\w+)`\*\*/gm)].map((m) => m[1]).sort();
    const marked: string[] = [];
    for (const service of ['identity', 'communities', 'search', 'enrichment', 'billing']) {
      const proto = readFileSync(join(repoRoot, 'proto', 'expertnet', service, 'v1', `${service}_service.proto`), 'utf8');
      for (const m of proto.matchAll(/\/\/ @public\n\s*rpc (\w+)\(/g)) marked.push(m[1]!);
    }
    expect(marked.length).toBeGreaterThan(10);
    expect(listed).toEqual(marked.sort());
  });
});
