// The deprecation schedule (API_DEPRECATIONS): which routes or versions are deprecated, since when,
// when they sunset and where to read about it. Parsed once at start; a bad schedule stops start-up.
import { z } from 'zod';
import { ConfigError } from '../../services/kit/config.js';

const entry = z
  .object({
    // "GET /v1/me" (one route, its method and path pattern) or "/v1" (every route under a prefix).
    match: z.string().regex(/^((GET|POST|DELETE|PUT|PATCH) )?\/\S*$/, 'match is "METHOD /path" or "/prefix"'),
    deprecated_at: z.string().datetime({ offset: true }),
    sunset_at: z.string().datetime({ offset: true }).optional(),
    link: z.string().url().optional(),
  })
  .strict()
  .refine((e) => !e.sunset_at || Date.parse(e.sunset_at) >= Date.parse(e.deprecated_at), 'sunset_at is before deprecated_at');

export type Deprecation = z.infer<typeof entry>;

export function parseDeprecations(json: string | undefined): Deprecation[] {
  if (!json) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ConfigError(['API_DEPRECATIONS: not valid JSON']);
  }
  const parsed = z.array(entry).safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `API_DEPRECATIONS.${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}

/** The most specific entry for a route: an exact "METHOD /path" wins over the longest prefix. */
export function deprecationFor(schedule: Deprecation[], method: string, routePath: string): Deprecation | undefined {
  const exact = schedule.find((d) => d.match === `${method} ${routePath}`);
  if (exact) return exact;
  return schedule
    .filter((d) => !d.match.includes(' ') && (routePath === d.match || routePath.startsWith(`${d.match.replace(/\/$/, '')}/`)))
    .sort((a, b) => b.match.length - a.match.length)[0];
}

/** Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers for an entry. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  const headers: Record<string, string> = { deprecation: `@${Math.floor(Date.parse(d.deprecated_at) / 1000)}` };
  if (d.sunset_at) headers.sunset = new Date(d.sunset_at).toUTCString();
  if (d.link) {
    const links = [`<${d.link}>; rel="deprecation"; type="text/html"`];
    if (d.sunset_at) links.push(`<${d.link}>; rel="sunset"; type="text/html"`);
    headers.link = links.join(', ');
  }
  return headers;
}
