// One command line of the admin CLI, run against a context: what `npm run admin -- …` does after
// parsing its environment (cli.ts). A failure is one `error: …` line on stderr and exit code 1,
// never a stack trace; commander's own refusals (usage errors, --help) are its own, as it decides.
import type { Command } from 'commander';
import { CommanderError } from 'commander';
import { Status } from 'nice-grpc';
import { readRemoteError } from '../../services/kit/grpc/errors.js';
import { UsageError, type AdminContext } from './context.js';
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

/** Runs `args` (the words after `npm run admin --`) on `program`; sets process.exitCode on failure. */
export async function runAdmin(ctx: AdminContext, program: Command, args: readonly string[]): Promise<void> {
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (error) {
    // Thrown only where the caller asked commander to throw instead of exiting (exitOverride).
    if (error instanceof CommanderError) throw error;
    process.stderr.write(`${describe(error)}\n`);
    process.exitCode = 1;
  } finally {
    ctx.close();
  }
}
