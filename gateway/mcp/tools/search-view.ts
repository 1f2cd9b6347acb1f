// What search_experts and get_search answer a model: by default a compact result, because every
// match a tool returns is read into the assistant's context (twenty full matches of the demo data
// are about 17 KB, most of them weak). Compact: the first `limit` matches that are not weak, each
// with the fields that identify the person, a rounded score and one line of explanation; the weak
// ones are counted, not shown, unless `include_weak` asks for them. `detail: "full"` answers the
// REST body itself (every field, the whole explanation), which is what the parity tests compare.
import { z } from 'zod';
import { SEARCH_LIMIT_MAX } from '../../core/contract/search.js';
import { ApiError } from '../../core/api-error.js';
import type { SearchMatchView } from '../../core/search.js';

/** Matches a compact result shows unless `limit` asks for more (REST's default is 20). */
export const COMPACT_LIMIT_DEFAULT = 5;
/** The longest explanation line of a compact match, in characters. */
export const WHY_MAX = 200;

/** The presentation arguments both search tools take besides the endpoint's own. */
export const presentationArgs = {
  detail: z
    .enum(['compact', 'full'])
    .optional()
    .describe('`compact` (default): top matches, weak ones left out, one line of explanation each. `full`: every field and the whole explanation, as REST answers.'),
  include_weak: z.boolean().optional().describe('Also show weak matches (little of the query found); by default they are only counted.'),
};
export const PRESENTATION_ARGS = Object.keys(presentationArgs);

export interface Presentation {
  detail: 'compact' | 'full';
  includeWeak: boolean;
  /** How many matches a compact result shows. */
  limit: number;
}

const Presentation = z.object(presentationArgs);

/**
 * The presentation arguments checked (a refusal names them, as every argument's does); the
 * endpoint's request is the rest. They change what is shown, never what runs.
 */
export function withoutPresentation(args: Record<string, unknown>): Record<string, unknown> {
  const { detail, include_weak, ...request } = args;
  const parsed = Presentation.safeParse({ detail, include_weak });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ApiError(400, 'invalid_request', problems.join('; '));
  }
  return request;
}

/** How the call's answer is shown; `limit` is the call's own once the request accepted it. */
export function presentationOf(args: Record<string, unknown>): Presentation {
  const limit = typeof args.limit === 'number' && Number.isInteger(args.limit) && args.limit >= 1 ? Math.min(args.limit, SEARCH_LIMIT_MAX) : COMPACT_LIMIT_DEFAULT;
  return { detail: args.detail === 'full' ? 'full' : 'compact', includeWeak: args.include_weak === true, limit };
}

/** The explanation's first sentence (a period inside a quoted passage does not end it), unbolded, at most WHY_MAX characters. */
export function oneLine(explanation: string | null): string | null {
  if (!explanation) return null;
  let quoted = false;
  let end = explanation.length;
  for (let i = 0; i < explanation.length; i++) {
    const c = explanation[i];
    if (c === '"') quoted = !quoted;
    else if (c === '.' && !quoted && (i + 1 === explanation.length || explanation[i + 1] === ' ')) {
      end = i + 1;
      break;
    }
  }
  const line = explanation.slice(0, end).replace(/\*\*/g, '').replace(/\s+/g, ' ').trim();
  if (line.length <= WHY_MAX) return line;
  const cut = line.slice(0, WHY_MAX - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), WHY_MAX / 2))}…`;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** One compact match: who, where, how good, why; empty fields left out. */
function compactMatch(m: SearchMatchView): Record<string, unknown> {
  const out: Record<string, unknown> = { profile_id: m.profile_id, name: m.name };
  for (const key of ['headline', 'organization', 'location'] as const) if (m[key]) out[key] = m[key];
  out.score = round(m.score);
  if (m.weak_match) out.weak_match = true;
  const why = oneLine(m.explanation);
  if (why) out.why = why;
  if (m.shared_communities.length > 0) out.shared_communities = m.shared_communities;
  return out;
}

/** A search's answer as the tool shows it. */
export function presentSearch<V extends { status: string }>(view: V, how: Presentation): object {
  const matches = (view as { matches?: SearchMatchView[] }).matches;
  if (how.detail === 'full' || !matches) return view;
  const shown = how.includeWeak ? matches : matches.filter((m) => !m.weak_match);
  const left = matches.length - shown.length;
  return {
    ...view,
    matches: shown.slice(0, how.limit).map(compactMatch),
    ...(left > 0 && { weak_matches_left_out: left }),
    ...(shown.length > how.limit && { more_matches: shown.length - how.limit }),
  };
}
