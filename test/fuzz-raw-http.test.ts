// Property-based fuzzing of the raw HTTP layer of both surfaces (REST on its port, MCP on its
// port) over plain sockets: malformed request lines, control characters and NUL in paths and
// headers, bad percent-encoding, lying or duplicate Content-Length, huge headers, chunked and
// compressed bodies, deep nesting, bodies over 1 MiB. Every answer: no 5xx, an X-Request-Id, and
// any refusal in the error envelope carrying that id; a request Node can parse without a credential
// is 401 first (a CORS preflight, and paths the MCP port does not serve, aside); nothing is stored.
// A failure prints its seed and path; docs/TESTING.md says how to replay it.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { answerProblems, describeFailure, fuzzParameters } from './helpers/fuzz-checks.js';
import { rawCaseArbitrary } from './helpers/fuzz-raw-requests.js';
import { settledSnapshot, startFuzzSystem, storedSince, type FuzzSystem, type StoreSnapshot } from './helpers/fuzz-system.js';
import { sendRaw } from './helpers/raw-http.js';
import { storeNames } from './helpers/stores.js';

const RUNS = { pglite: 600, postgres: 150 } as const;

describe.each(storeNames())('raw HTTP fuzzing on %s', (store) => {
  let f: FuzzSystem;
  beforeAll(async () => {
    f = await startFuzzSystem(store);
  }, 300_000);
  afterAll(async () => f?.stop());

  const credentials = (keys: FuzzSystem['keys']) => fc.constantFrom<{ label: string; headers: Array<[string, string]>; none: boolean }>(
    { label: 'no credential', headers: [], none: true },
    { label: 'key with every scope', headers: [['Authorization', `Bearer ${keys.all}`]], none: false },
    { label: 'key with search:read only', headers: [['X-API-Key', keys.byScope['search:read']]], none: false },
    { label: 'bad key', headers: [['Authorization', 'Bearer svc_live_nope']], none: false },
  );

  it.each(['rest', 'mcp'] as const)('answers any message on the %s port without a 5xx, with the envelope and X-Request-Id, 401 first, storing nothing', async (surface) => {
    const url = surface === 'rest' ? f.restUrl : f.mcpUrl;
    const host = new URL(url).host;
    let baseline: StoreSnapshot | undefined;
    await fc.assert(
      fc.asyncProperty(rawCaseArbitrary(surface), credentials(f.keys), async (rawCase, credential) => {
        baseline ??= await settledSnapshot(f.db);
        const bytes = rawCase.build({ host, credential: credential.headers });
        const answer = await sendRaw(url, bytes);
        const head = rawCase.label.startsWith('HEAD ');
        // Paths the MCP port does not serve are 404 before authentication (docs/MCP.md).
        const unservedMcpPath = surface === 'mcp' && rawCase.path !== '/mcp';
        const problems = answerProblems(answer, {
          noCredential: credential.none && rawCase.parseable && !unservedMcpPath,
          allowed: rawCase.preflight ? [204] : [],
          noBody: head,
        });
        if (answer.status >= 400 || answer.status === 0) {
          const stored = await storedSince(f.db, baseline);
          if (stored.length > 0) problems.push(`a refused request stored rows in ${stored.join(', ')}`);
        } else {
          baseline = undefined;
        }
        if (problems.length > 0) throw new Error(describeFailure(problems, `${rawCase.label} [${credential.label}]`, answer));
      }),
      fuzzParameters(RUNS[store]),
    );
  }, 600_000);
});
