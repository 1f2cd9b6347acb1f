// The rules every answer of the API keeps, whatever was sent (docs/CONFORMANCE.md, ERR-F1 to
// ERR-F4), and the fast-check settings of the fuzz suites: a fixed seed that a failure prints,
// so that it can be replayed (docs/TESTING.md).
import type fc from 'fast-check';
import type { RawAnswer } from './raw-http.js';
import { parserRefusal } from '../../gateway/core/client-error.js';

const PARSER_REFUSALS = ['HPE_HEADER_OVERFLOW', 'ERR_HTTP_REQUEST_TIMEOUT', 'HPE_INVALID'].map((code) => parserRefusal(Object.assign(new Error(), { code })));

/** An answer written by the parser-refusal handler: its status, code and message, and Connection: close. */
function isParserRefusal(answer: RawAnswer): boolean {
  let error: { code?: unknown; message?: unknown } | undefined;
  try {
    error = JSON.parse(answer.body)?.error;
  } catch {
    return false;
  }
  return answer.headers.connection === 'close' && PARSER_REFUSALS.some((r) => r.status === answer.status && r.code === error?.code && r.message === error?.message);
}

export interface Expectation {
  /** No Authorization and no X-API-Key was sent: the answer must be 401 (a CORS preflight aside). */
  noCredential?: boolean;
  /** Statuses this request may be answered with besides the general rules (e.g. a preflight's 204). */
  allowed?: number[];
  /** A HEAD request: the answer has no body, so there is no envelope to read. */
  noBody?: boolean;
}

/** What is wrong with an answer; empty when it keeps every rule. */
export function answerProblems(answer: RawAnswer, expectation: Expectation = {}): string[] {
  const problems: string[] = [];
  if (answer.status === 0 || Number.isNaN(answer.status)) return ['no HTTP response (connection closed or unreadable status line)'];
  if (answer.status >= 500) problems.push(`a ${answer.status}: no input may produce a 5xx`);
  const requestId = answer.headers['x-request-id'];
  if (!requestId) problems.push('no X-Request-Id header');
  // Node's HTTP parser refused the request before its headers (and so any credential) could be
  // read: no authentication is possible there (docs/API-DECISIONS.md). Those refusals are known
  // by their exact envelope (gateway/core/client-error.ts).
  const unread = isParserRefusal(answer);
  if (expectation.noCredential && answer.status !== 401 && !unread && !expectation.allowed?.includes(answer.status)) {
    problems.push(`${answer.status} without a credential: expected 401 before anything else`);
  }
  if (answer.status >= 300 && !expectation.noBody) {
    let envelope: any;
    try {
      envelope = JSON.parse(answer.body);
    } catch {
      envelope = undefined;
    }
    const error = envelope?.error;
    if (!error || typeof error.code !== 'string' || !error.code || typeof error.message !== 'string' || typeof error.request_id !== 'string') {
      problems.push(`a ${answer.status} that is not the error envelope {"error":{"code","message","request_id"}}`);
    } else if (error.request_id !== requestId && answer.headers['idempotent-replayed'] !== 'true') {
      // A replayed stored error keeps its first request id (docs/IDEMPOTENCY.md); nothing else may differ.
      problems.push(`error.request_id ${JSON.stringify(error.request_id)} differs from X-Request-Id ${JSON.stringify(requestId)}`);
    }
    if (/\n\s+at \S|node_modules/.test(answer.body)) problems.push('the body reveals internals (a stack trace or a path)');
  }
  return problems;
}

/** A failure message that shows what was sent and what came back, cut to a readable size. */
export function describeFailure(problems: string[], sent: string, answer: RawAnswer): string {
  const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s);
  return [`${problems.join('; ')}`, `sent: ${cut(JSON.stringify(sent), 600)}`, `answer: ${cut(answer.head, 600)}`, `body: ${cut(answer.body, 400)}`].join('\n');
}

/**
 * The seed of a run: FUZZ_SEED when set (to replay a failure), else the UTC day as yyyymmdd, so the
 * suites send the same number of cases on every run but new ones each day, and all runs of one day
 * the same ones.
 */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env, now: Date = new Date()): number {
  if (env.FUZZ_SEED) return Number(env.FUZZ_SEED);
  return now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate();
}

let seedSaid = false;

/**
 * fast-check settings: the seed of the day or FUZZ_SEED (printed once per file, and with any
 * failure together with its path), FUZZ_RUNS_SCALE scales every property, FUZZ_SHRINK=1 shrinks a
 * failure to a small counterexample (off by default to keep a failing run short).
 */
export function fuzzParameters<T>(numRuns: number): fc.Parameters<T> {
  const seed = fuzzSeed();
  if (!seedSaid) {
    seedSaid = true;
    console.log(`fuzz seed ${seed} (replay with FUZZ_SEED=${seed})`);
  }
  const scale = Number(process.env.FUZZ_RUNS_SCALE ?? 1);
  const path = process.env.FUZZ_PATH;
  return {
    seed,
    numRuns: Math.max(1, Math.round(numRuns * scale)),
    endOnFailure: process.env.FUZZ_SHRINK !== '1',
    ...(path && { path }),
    verbose: 1,
  };
}
