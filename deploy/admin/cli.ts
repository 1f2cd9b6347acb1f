// `npm run admin -- <command>`: operator commands against a running system, over gRPC, as the
// operator (program.ts has the command tree, run.ts runs one command line). Results go to stdout —
// tables, or JSON with --json — and failures to stderr as one `error: …` line with a non-zero exit,
// never a stack trace.
import { createAdminContext } from './context.js';
import { buildProgram } from './program.js';
import { runAdmin } from './run.js';

const ctx = createAdminContext();
await runAdmin(ctx, buildProgram(ctx), process.argv.slice(2));
