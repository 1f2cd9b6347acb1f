// Resolution hook registered by register.mjs (Node 20 only; see there): the conformance package's
// imports of `fs` resolve to fs.mjs, node:fs plus globSync. Nothing else is redirected.
const FS_STAND_IN = new URL('./fs.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/node_modules/@modelcontextprotocol/conformance/')) {
    return { url: FS_STAND_IN, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
