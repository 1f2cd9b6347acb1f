// `seed FILE`: applies a seed file (the operator contract's format) to the running system, with a
// progress bar on a terminal; prints the secrets of keys it minted (`{ "keys": { id: secret } }`).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { applySeed } from '../apply-seed.js';
import type { AdminContext } from '../context.js';
import { print, withJson } from '../output.js';
import { progressBar } from '../progress.js';

export function registerSeed(program: Command, ctx: AdminContext): void {
  withJson(program.command('seed'))
    .description('apply a seed file, idempotently by id; prints the secret of each key it minted')
    .argument('<file>', 'the seed file (JSON)')
    .option('--no-progress', 'no progress bar on a terminal')
    .action(async (file: string, options: { json?: boolean; progress: boolean }) => {
      const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      const { clients, signer } = ctx.services();
      const bar = progressBar('seed', options.progress);
      const result = await applySeed(clients, signer, doc, { actor: 'cli-seed', onProgress: (done, total) => bar.update(done, total, 'records') })
        .finally(() => bar.stop());
      print({ keys: result.keys }, options, {
        human: (r) => {
          const minted = Object.entries(r.keys as Record<string, string>);
          return minted.length === 0 ? 'seed applied; no key minted' : `seed applied; secrets of the keys it minted (shown once, keep them):\n${minted.map(([id, s]) => `${id}  ${s}`).join('\n')}`;
        },
      });
    });
}
