// `npm run admin -- <command>`: operator commands against a running system, over gRPC, as the
// operator (program.ts has the command tree). Results go to stdout — tables, or JSON with --json —
// and failures to stderr as one `error: …` line with a non-zero exit, never a stack trace.
import { Status } from 'nice-grpc';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { createAdminContext, UsageError } from './context.js';
import { buildProgram } from './program.js';
import { SeedError } from './seed-schema.js';

function describe(error: unknown): string {
  const remote = readRemoteError(error);
  if (error instanceof UsageError) return `error: ${error.message}\n(add --help for usage)`;
  // Nothing listens where the system was said to be (stopped since, or a wrong address).
  const refused = remote && !remote.code && remote.status === Status.UNAVAILABLE ? /ECONNREFUSED (\S+?)\.?(?:\s|$)/.exec(remote.message) : null;
  if (refused) return `error: nothing answers at ${refused[1]}: is the system running? Start it with npm start (same DATA_DIR)`;
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
