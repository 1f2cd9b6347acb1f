// `npm run gen`: regenerates proto/gen from the .proto files — the TypeScript clients and
// service definitions (ts-proto, for nice-grpc) and the descriptor set that gRPC server
// reflection serves — then docs/GRPC.md's reference, which is read from that descriptor set
// (grpc-reference.ts). The drift test calls generateInto() on a temporary folder and compares.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const buf = join(repoRoot, 'node_modules', '.bin', 'buf');

/** Generates into `<root>/proto/gen`, replacing whatever was there. */
export function generateInto(root: string): string {
  const out = join(root, 'proto', 'gen');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const run = (args: string[]) => execFileSync(buf, args, { cwd: repoRoot, stdio: 'inherit' });
  run(['generate', 'proto', '--template', 'proto/buf.gen.yaml', '--output', root]);
  run(['build', 'proto', '--output', join(out, 'descriptors.binpb')]);
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`generated ${generateInto(repoRoot)}`);
  const { writeGrpcReference } = await import('./grpc-reference.js');
  console.log(`wrote the reference of ${writeGrpcReference(repoRoot)}`);
}
