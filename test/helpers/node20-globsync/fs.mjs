// node:fs with the globSync of Node >= 22, for the conformance CLI on Node 20 (see register.mjs).
// The CLI calls it once, `globSync('**/checks.json', { cwd })` in `tier-check`, which the test does
// not run; it is provided so that the bundle links. tinyglobby (vitest's and vite's own glob
// library) returns, like fs.globSync, paths relative to `cwd`.
import { globSync as tinyGlobSync } from 'tinyglobby';

export * from 'node:fs';
export { default } from 'node:fs';

/** fs.globSync(pattern | patterns, { cwd, exclude }) for string results (no `withFileTypes`). */
export function globSync(pattern, options = {}) {
  if (options.withFileTypes) throw new Error('globSync shim: withFileTypes is not supported');
  const ignore = Array.isArray(options.exclude) ? options.exclude : [];
  return tinyGlobSync(pattern, { cwd: options.cwd ?? process.cwd(), ignore, expandDirectories: false, onlyFiles: false });
}
