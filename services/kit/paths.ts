import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root (the folder of package.json), for files the code ships with and reads at run
 * time (migrations, the descriptor set, the search model's cache). Found by walking up from this
 * file, so it is the same whether the code runs as TypeScript (services/kit/) or compiled
 * (dist/services/kit/, `npm run build`): the assets are never copied into dist/.
 */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const repoRoot = packageRoot(resolve(dirname(fileURLToPath(import.meta.url))));
