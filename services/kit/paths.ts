import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, for files the code ships with (migrations, descriptor set). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
