// `npm run grpc-reference`: rewrites the reference part of docs/GRPC.md from the protos
// (proto/grpc-reference.ts). `npm run gen` does it too, after regenerating proto/gen.
import { writeGrpcReference } from './grpc-reference.js';
import { repoRoot } from './generate.js';

console.log(`wrote the reference of ${writeGrpcReference(repoRoot)}`);
