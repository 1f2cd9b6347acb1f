// No text a service stores may contain NUL (U+0000): PostgreSQL text cannot hold it, so a request
// carrying one would fail deep inside a repository as an internal error. The public edge refuses it
// in its request schemas; this is the same rule at every service's gRPC door, for internal callers
// (the admin CLI, other services): a unary request with a NUL in any string field, however deeply
// nested, is INVALID_ARGUMENT `invalid_request` naming the field, before the method runs.

export const NUL_MESSAGE = 'must not contain the NUL character (U+0000)';

/** The path of the first string containing NUL in a decoded message (iterative), or undefined. */
export function nulPath(message: unknown): string | undefined {
  const stack: Array<{ value: unknown; path: string }> = [{ value: message, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return path || '(request)';
      continue;
    }
    if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value) || value instanceof Date) continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) stack.push({ value: child, path: path ? `${path}.${key}` : key });
  }
  return undefined;
}
