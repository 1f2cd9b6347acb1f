// The layering rules of the product code (gateway/, services/, deploy/, proto/), checked by
// test/architecture.test.ts in `npm test` and by hand with `npx depcruise gateway services deploy proto`.
// Folders are floors: deploy/ (the launcher, the operator CLI, the local topology) stands on the
// gateway and the services; the gateway stands on the kit and the generated code; each service
// stands on the kit and the generated code only; the kit stands on generated code alone.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'An import circle ties its files into one unit: move what both sides need into a module of its own.',
      severity: 'error',
      from: { path: '^(gateway|services|deploy|proto)/' },
      to: { circular: true },
    },
    {
      name: 'service-to-other-service',
      comment: 'A service reaches another only over gRPC (generated clients), never through its files.',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/kit/' },
      to: { path: '^services/', pathNot: '^services/($1|kit)/' },
    },
    {
      name: 'service-to-gateway',
      comment: 'A service knows nothing of the edge that calls it.',
      severity: 'error',
      from: { path: '^services/([^/]+)/', pathNot: '^services/kit/' },
      to: { path: '^gateway/' },
    },
    {
      name: 'gateway-to-service-internals',
      comment: 'The gateway knows the services only through the shared kit and the generated code.',
      severity: 'error',
      from: { path: '^gateway/' },
      to: { path: '^(services|proto)/', pathNot: '^(services/kit|proto/gen)/' },
    },
    {
      name: 'kit-to-service-or-gateway',
      comment: 'The kit is the floor the services and the gateway share: it imports neither.',
      severity: 'error',
      from: { path: '^services/kit/' },
      to: { path: '^(services|gateway)/', pathNot: '^services/kit/' },
    },
    {
      name: 'surfaces-apart',
      comment: 'REST, MCP and settings stand on gateway/core and never import each other; the core imports none.',
      severity: 'error',
      from: { path: '^gateway/(rest|mcp|settings|core)/' },
      to: { path: '^gateway/(rest|mcp|settings)/', pathNot: '^gateway/$1/' },
    },
    {
      name: 'nothing-imports-deploy',
      comment: 'deploy/ (the launcher) is the top floor: product code never imports it (tests may).',
      severity: 'error',
      from: { path: '^(gateway|services|proto)/' },
      to: { path: '^deploy/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|\\.test\\.ts$|^test/' },
    // Type-only imports count: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    // With the tsconfig, `./x.js` specifiers (NodeNext) resolve to the `./x.ts` beside them.
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
