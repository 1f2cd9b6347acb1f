// Validates a request part with the same zod schema the OpenAPI document is built from; a
// violation is 400 invalid_request with a precise message (field path and reason), nothing changed.
import type { z } from 'zod';
import { ApiError } from '../core/api-error.js';

export function validated<S extends z.ZodType>(schema: S, value: unknown, part: 'body' | 'query' | 'path'): z.output<S> {
  const parsed = schema.safeParse(value ?? {});
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${[part, ...i.path].join('.')}: ${i.message}`);
  throw new ApiError(400, 'invalid_request', problems.join('; '));
}
