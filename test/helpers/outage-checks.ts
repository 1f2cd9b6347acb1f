// What every outage suite (test/postgres/dependency-outage-*.test.ts) checks against a running
// system whose Redis and database are its own: the answer a client gets while a dependency is
// frozen, killed or refusing connections (503 `unavailable` in the envelope with Retry-After, within
// the configured bounds), what /readyz says, and the log lines of the processes (one per change of
// state: docs/OPERATIONS.md "When Redis or PostgreSQL is down").
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { bearer, request, type JsonResponse } from './http.js';

/** The bounds the suites configure (small, so that the suites are quick). */
export const OUTAGE_ENV = {
  REDIS_COMMAND_TIMEOUT_MS: '500',
  REDIS_CONNECT_TIMEOUT_MS: '500',
  DATABASE_CONNECT_TIMEOUT_MS: '1000',
  READINESS_TIMEOUT_MS: '1000',
  // Longer than any test of the suite may run: while Redis is frozen (it never answers), only the
  // bounds above can end a request or a probe, so an answer at all shows that they hold.
  GRPC_DEADLINE_MS: '120000',
  // Longer than a suite: a dependency that stays down is not logged again during one.
  DEPENDENCY_LOG_REPEAT_SECONDS: '3600',
  LOG_LEVEL: 'info',
} as const;


export interface LogLine {
  level: number;
  msg: string;
  dependency?: string;
  [k: string]: unknown;
}

/** Every JSON log line a process writes on stdout from now on (the helpers keep only a tail). */
export function captureLogs(child: ChildProcess): { lines: LogLine[]; since(mark: number): LogLine[] } {
  const lines: LogLine[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const text = partial + d.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop()!;
    for (const part of parts) {
      try {
        const line = JSON.parse(part) as LogLine;
        if (typeof line.level === 'number') lines.push(line);
      } catch {
        // not a log line (the LISTENING report, the banner)
      }
    }
  });
  return { lines, since: (mark) => lines.slice(mark) };
}

/** The lines of a dependency's state (services/kit/dependencies/state.ts) among `lines`. */
export function stateLines(lines: LogLine[], dependency: 'redis' | 'database') {
  const of = lines.filter((l) => l.dependency === dependency);
  return {
    down: of.filter((l) => l.msg.startsWith(`${dependency} unavailable`)).length,
    stillDown: of.filter((l) => l.msg === `${dependency} still unavailable`).length,
    back: of.filter((l) => l.msg === `${dependency} available again`).length,
  };
}

/** Warnings and errors other than the dependency states' own: what a failed request must not add. */
export function otherComplaints(lines: LogLine[]): LogLine[] {
  return lines.filter((l) => l.level >= 40 && l.dependency === undefined);
}

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: Math.round(performance.now() - started) };
}

/** 503 `unavailable` in the envelope with Retry-After. */
export function expectUnavailable(res: JsonResponse, what: string): void {
  expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(503);
  expect(res.body.error, what).toMatchObject({ code: 'unavailable', request_id: expect.any(String) });
  expect(res.headers.get('retry-after'), what).toBe('1');
}

export interface ReadyzAnswer {
  status: number;
  ms: number;
  checks: Record<string, string>;
  failing: Record<string, string>;
}

export async function readyz(adminUrl: string): Promise<ReadyzAnswer> {
  const { value, ms } = await timed(() => request(adminUrl, 'GET', '/readyz'));
  return { status: value.status, ms, checks: value.body.checks ?? {}, failing: value.body.failing ?? {} };
}

/** Polls `fn` until it holds or `timeoutMs` passes; returns how long it took. */
export async function eventually(what: string, fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await fn()) return Math.round(performance.now() - started);
    if (performance.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const me = (baseUrl: string, secret: string) => request(baseUrl, 'GET', '/v1/me', { headers: bearer(secret) });

/**
 * One MCP tool call (stateless streamable HTTP answering JSON) while a dependency is down: the
 * error code it answers. A caller that could not be authenticated (identity's store or Redis down)
 * is refused by the transport, as a missing credential is: 503 in the envelope with Retry-After; a
 * caller authenticated (from identity's cache) gets a tool error.
 */
export async function mcpToolErrorCode(mcpUrl: string, secret: string, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const res = await request(mcpUrl, 'POST', '', {
    headers: { ...bearer(secret), accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  if (res.status !== 200) {
    expectUnavailable(res, `MCP ${name}`);
    return res.body.error.code;
  }
  const result = res.body.result as { isError?: boolean; content: Array<{ type: string; text?: string }> };
  expect(result.isError, JSON.stringify(result)).toBe(true);
  return (JSON.parse(result.content.find((c) => c.type === 'text')!.text!) as { error: { code: string } }).error.code;
}
