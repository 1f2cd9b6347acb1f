// What a consent grants: the keys screen's one-click Read preset (services/kit/scopes.ts, the
// preset the mint form offers), plus only the other scopes the person ticks. A client — the MCP
// SDK among them — may ask for every scope the server supports; asking is not granting. The
// spec's rule: `self:enrich` is "not in the one-click Read preset and must be chosen explicitly",
// and so are the write scopes.
import { textProblem } from '../../services/kit/request-text.js';
import { isScope, READ_PRESET, type Scope } from '../../services/kit/scopes.js';
import { PageError } from './page-error.js';

export interface ConsentScopes {
  /** Granted by Allow alone: the Read preset's scopes the client asked for (the whole preset when it named no API scope). */
  preset: Scope[];
  /** Asked for beyond the preset: each an unticked choice on the page. */
  choices: Scope[];
}

/** The page's split of a request's `scope` parameter. */
export function consentScopesOf(requested: string): ConsentScopes {
  const asked = [...new Set(requested.split(' ').filter(isScope))];
  if (asked.length === 0) return { preset: [...READ_PRESET], choices: [] };
  return { preset: READ_PRESET.filter((s) => asked.includes(s)), choices: asked.filter((s) => !READ_PRESET.includes(s)) };
}

/**
 * The scopes an Allow grants: the preset's and the ticked choices. A ticked scope the client did
 * not ask for, or text the store cannot keep, is refused with a message rather than dropped.
 */
export function grantedScopes(requested: string, ticked: string | string[] | undefined): Scope[] {
  const { preset, choices } = consentScopesOf(requested);
  const values = ticked === undefined ? [] : Array.isArray(ticked) ? ticked : [ticked];
  for (const value of values) {
    const problem = textProblem(value);
    if (problem) throw new PageError(400, `scopes: ${problem}`);
    if (!(choices as string[]).includes(value)) throw new PageError(400, 'scopes: choose only among the scopes the application asked for');
  }
  const granted = [...preset, ...choices.filter((s) => values.includes(s))];
  if (granted.length === 0) throw new PageError(400, 'Choose at least one scope to allow, or deny the request.');
  return granted;
}
