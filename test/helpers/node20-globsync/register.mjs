// Node 20 shim for the MCP conformance CLI (@modelcontextprotocol/conformance), used only by
// test/mcp-conformance.test.ts: `node --import ./test/helpers/node20-globsync/register.mjs
// node_modules/@modelcontextprotocol/conformance/dist/index.js …`.
//
// Why: the CLI's bundle does `import { globSync } from "fs"`, an export Node added in 22. On Node 20
// the import fails at link time, before any code runs, so the CLI cannot even print --help. A
// builtin's named ESM exports are fixed, so assigning fs.globSync from a preload does not help;
// instead a module-resolution hook (hooks.mjs) hands the package a stand-in for `fs` (fs.mjs) that
// re-exports node:fs and adds globSync.
//
// Delete this directory (and the --import in the test) once the project requires Node >= 22.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./hooks.mjs', import.meta.url);
