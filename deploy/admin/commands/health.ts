// `health`: every service's gRPC health endpoint; exits 1 when one is not serving.
import type { Command } from 'commander';
import { SERVICE_ROLES } from '../../../services/kit/config.js';
import { checkGrpcHealth } from '../../../services/kit/grpc/health.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { table } from '../table.js';

export function registerHealth(program: Command, ctx: AdminContext): void {
  withJson(program.command('health'))
    .description("ask every service's gRPC health endpoint; exits 1 when one is not serving")
    .action(async (options: { json?: boolean }) => {
      const { addresses, tls } = ctx.services();
      const entries = await Promise.all(SERVICE_ROLES.map(async (s) => [s, { address: addresses[s], serving: await checkGrpcHealth(addresses[s], '', 2000, tls) }] as const));
      if (entries.some(([, r]) => !r.serving)) process.exitCode = 1;
      print(Object.fromEntries(entries), options, {
        human: () => table(entries.map(([service, r]) => ({ service, ...r }))),
      });
    });
}
