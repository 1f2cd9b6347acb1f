// The image (deploy/Dockerfile), checked offline: parsed by dockerfile-ast; stages, user, CMD,
// HEALTHCHECK, what is copied.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Copy, DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { RUNTIME_FLAGS } from '../deploy/launcher/runtime-flags.js';
import { deployDir, type Json, root, SECRET_NAME } from './helpers/deploy-files.js';

describe('deploy/Dockerfile', () => {
  const dockerfile = DockerfileParser.parse(readFileSync(join(deployDir, 'Dockerfile'), 'utf8'));
  const instructions = dockerfile.getInstructions();
  const froms = dockerfile.getFROMs();
  const finalFrom = froms[froms.length - 1]!;
  const finalStage = instructions.filter((i) => i.getRange().start.line >= finalFrom.getRange().start.line);
  const keyword = (i: Instruction) => i.getKeyword().toUpperCase();
  const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());
  /** A COPY's stage (--from), sources and destination. */
  const copyOf = (i: Instruction) => {
    const words = args(i);
    return { from: i instanceof Copy ? i.getFromFlag()?.getValue() ?? undefined : undefined, sources: words.slice(0, -1), destination: words[words.length - 1] };
  };
  const jsonArgs = (i: Instruction): string[] => JSON.parse(i.getArgumentsContent() ?? 'null') as string[];

  /** The stage an instruction belongs to (the last FROM above it). */
  const stageOf = (i: Instruction) => froms.filter((f) => f.getRange().start.line <= i.getRange().start.line).pop()!.getBuildStage();

  it('is multi-stage: dependencies installed by `npm ci` (the lockfile as it is), production packages only in the runtime stage, a node:20 runtime stage', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.getBuildStage(), from.getImage() ?? '').toBeTruthy();
    expect(finalFrom.getImage()).toMatch(/^(node:20(\.\d+)*-slim|gcr\.io\/distroless\/nodejs20-debian\d+(:nonroot)?)@sha256:[0-9a-f]{64}$/);
    // Every base image is a release pinned by its digest: a re-pushed tag cannot change the build.
    for (const from of froms) expect(from.getImage(), from.getBuildStage() ?? '').toMatch(/^[a-z0-9./-]+:[\w.-]*\d+\.\d+[\w.-]*@sha256:[0-9a-f]{64}$/);
    const installs = instructions.filter((i) => keyword(i) === 'RUN' && /\bnpm (ci|install|i)\b/.test(i.getArgumentsContent() ?? ''));
    expect(installs.length).toBeGreaterThan(0);
    for (const install of installs) expect(install.getArgumentsContent()).toMatch(/\bnpm ci\b/);
    // Nothing is installed in the final stage: it copies node_modules from a stage that installed
    // production packages only (the compiler stays in the build stage).
    expect(finalStage.filter((i) => keyword(i) === 'RUN' && /\bnpm\b/.test(i.getArgumentsContent() ?? ''))).toEqual([]);
    const copies = finalStage.filter((i) => keyword(i) === 'COPY').map(copyOf);
    const modulesFrom = copies.filter((c) => c.sources.some((x) => x.endsWith('/node_modules'))).map((c) => c.from);
    expect(modulesFrom).toHaveLength(1);
    const stageInstalls = installs.filter((i) => stageOf(i) === modulesFrom[0]);
    expect(stageInstalls.length).toBeGreaterThan(0);
    for (const install of stageInstalls) expect(install.getArgumentsContent()).toMatch(/--omit=dev|--only=prod/);
  });

  it('copies only production files that exist, never tests, local data or the host node_modules', () => {
    expect(instructions.filter((i) => keyword(i) === 'ADD')).toEqual([]);
    const contextSources = instructions
      .filter((i) => keyword(i) === 'COPY')
      .map(copyOf)
      .filter((c) => c.from === undefined)
      .flatMap((c) => c.sources);
    expect(contextSources.length).toBeGreaterThan(0);
    for (const source of contextSources) {
      expect(existsSync(join(root, source)), source).toBe(true);
      expect(source).not.toMatch(/^(\.|test|docs|node_modules|\.data|\.git)(\/|$)|^\.$/);
    }
    for (const needed of ['services', 'gateway', 'deploy/launcher', 'deploy/admin', 'proto/gen', 'package.json', 'package-lock.json', 'tsconfig.build.json']) expect(contextSources).toContain(needed);
    expect(statSync(join(root, 'proto', 'gen', 'descriptors.binpb')).isFile()).toBe(true);
    const ignore = readFileSync(join(deployDir, 'Dockerfile.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const pattern of ['**', '**/.data', '**/node_modules', '**/*.test.ts']) expect(ignore).toContain(pattern);
  });

  it('runs as an unprivileged user, with no secret in ENV or ARG', () => {
    const users = finalStage.filter((i) => keyword(i) === 'USER').map((i) => i.getArgumentsContent() ?? '');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.split(':')[0]!;
    expect(['root', '0', '']).not.toContain(user);
    expect(['node', '10001', 'nonroot', '65532']).toContain(user);
    // The last USER comes after the last RUN: nothing of the final image runs as root afterwards.
    const lastUser = finalStage.map(keyword).lastIndexOf('USER');
    expect(finalStage.map(keyword).lastIndexOf('RUN')).toBeLessThan(lastUser);
    for (const i of instructions.filter((x) => ['ENV', 'ARG'].includes(keyword(x)))) {
      const names = (i.getArgumentsContent() ?? '').match(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g)?.map((n) => n.trim()) ?? [];
      for (const name of names) expect(name, `${keyword(i)} ${name}`).not.toMatch(SECRET_NAME);
    }
  });

  it('runs the compiled entry point (npm run build in a build stage), exposes 8080 8081 9090 and health-checks /healthz on the admin port', () => {
    const cmds = dockerfile.getCMDs();
    expect(cmds.length).toBeGreaterThan(0);
    // With the system's runtime flags (deploy/launcher/runtime-flags.ts).
    expect(jsonArgs(cmds[cmds.length - 1]!)).toEqual(['node', ...RUNTIME_FLAGS, 'dist/deploy/launcher/main.js']);
    expect(finalStage.some((i) => keyword(i) === 'ENTRYPOINT')).toBe(false);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Json;
    expect(pkg.scripts['start:prod']).toContain('dist/deploy/launcher/main.js');
    const builds = instructions.filter((i) => keyword(i) === 'RUN' && /\bnpm run build\b/.test(i.getArgumentsContent() ?? ''));
    expect(builds).toHaveLength(1);
    const distFrom = finalStage.filter((i) => keyword(i) === 'COPY').map(copyOf).find((c) => c.sources.includes('/app/dist'));
    expect(distFrom?.from).toBe(stageOf(builds[0]!));
    const exposed = finalStage.filter((i) => keyword(i) === 'EXPOSE').flatMap(args).map((p) => Number(p.split('/')[0]));
    expect(exposed.sort()).toEqual([8080, 8081, 8082, 9090]);
    const healthchecks = dockerfile.getHEALTHCHECKs();
    expect(healthchecks.length).toBe(1);
    const check = healthchecks[0]!.getArgumentsContent() ?? '';
    expect(check).toMatch(/\bCMD\b/);
    expect(check).toContain('/healthz');
    expect(check).toMatch(/ADMIN_PORT|9090/);
    // The image's defaults for a container: bind every interface, DATA_DIR writable by the user.
    const env = finalStage.filter((i) => keyword(i) === 'ENV').map((i) => i.getArgumentsContent() ?? '').join(' ');
    expect(env).toMatch(/HOST=0\.0\.0\.0/);
    expect(env).toMatch(/DATA_DIR=\/data/);
    expect(env).toMatch(/NODE_ENV=production/);
  });
});
