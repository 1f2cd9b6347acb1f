// A copy of a service's migrations without the one an upgrade test is about and any later one, so
// the test can fill a database as it stood before, then run the real folder and see what it does.
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The migrations of `dir` named before `upgrade`, in a temporary folder; `remove` deletes it. */
export function migrationsBefore(dir: string, upgrade: string): { dir: string; remove(): void } {
  const copy = mkdtempSync(join(tmpdir(), 'en-migrations-'));
  cpSync(dir, copy, { recursive: true });
  for (const name of readdirSync(copy)) if (name >= upgrade) rmSync(join(copy, name));
  return { dir: copy, remove: () => rmSync(copy, { recursive: true, force: true }) };
}
