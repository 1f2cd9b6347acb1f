// `npm run grpc-reference`: rewrites the reference part of docs/GRPC.md from the protos
// (proto/grpc-reference.ts). Run `npm run gen` first after a proto change.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { referenceFromRepo, withReference } from './grpc-reference.js';
import { repoRoot } from './generate.js';

const page = join(repoRoot, 'docs', 'GRPC.md');
writeFileSync(page, withReference(readFileSync(page, 'utf8'), referenceFromRepo(repoRoot)));
console.log(`wrote the reference of ${page}`);
