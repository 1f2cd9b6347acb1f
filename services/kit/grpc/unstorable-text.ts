// No text a service stores may be text the store cannot keep (services/kit/request-text.ts: NUL, a
// lone surrogate): it would fail deep inside a repository as an internal error, or be stored as
// something else. The public edge refuses it in its request schemas; this is the same rule at every
// service's gRPC door, for internal callers (the admin CLI, other services, the co-located roles
// calling in process): a unary request with such text in any string field, however deeply nested,
// is INVALID_ARGUMENT `invalid_request` naming the field, before the method runs. A method that
// answers the items of a list one by one (a bulk add) names that field in its registration
// (`itemized`): the door leaves the items' text to the method, which rejects a bad item in its
// result instead of refusing the whole request.
import { textProblem } from '../request-text.js';

/** The first string of a decoded message the store cannot keep: its path and the problem, or undefined. */
export function unstorableText(message: unknown, itemized?: string): { path: string; problem: string } | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: message, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { path: path || '(request)', problem };
      continue;
    }
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof Date) continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      if (path === '' && key === itemized) continue;
      stack.push({ value: child, path: path ? `${path}.${key}` : key });
    }
  }
  return undefined;
}
