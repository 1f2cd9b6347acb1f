// `npm run admin -- <command>`: operator commands against a running system, over gRPC, as the
// operator (program.ts has the command tree). Results go to stdout — tables, or JSON with --json —
// and failures to stderr as one `error: …` line with a non-zero exit, never a stack trace.
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { createAdminContext, UsageError } from './context.js';
import { buildProgram } from './program.js';
import { SeedError } from './seed-schema.js';

function describe(error: unknown): string {
  const remote = readRemoteError(error);
  if (error instanceof UsageError) return `error: ${error.message}\n(add --help for usage)`;
  if (remote) return `error: ${remote.code ?? 'grpc'}: ${remote.message}`;
  if (error instanceof SeedError) return error.message;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

const ctx = createAdminContext();
try {
  await buildProgram(ctx).parseAsync(process.argv);
} catch (error) {
  console.error(describe(error));
  process.exitCode = 1;
} finally {
  ctx.close();
}
