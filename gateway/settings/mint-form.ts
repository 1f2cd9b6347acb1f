// The mint form's fields turned into a MintKeyRequest for the signed-in user. The form is checked
// here for a clear message beside the form, which is shown again with what was entered; identity
// checks everything again (scopes, rate, allowlist, expiry, and at its gRPC door the text rule
// every request text passes: services/kit/request-text.ts). Nothing the form sent is dropped
// silently: scopes ticked under the Read preset are a contradiction, refused with a message.
import type { MintKeyRequest } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { DEFAULT_KEY_ENVIRONMENT, keyEnvironments } from '../../services/kit/enums.js';
import { textProblem } from '../../services/kit/request-text.js';
import { isScope, SCOPE_TIER, SCOPES } from '../../services/kit/scopes.js';

/** The longest key name identity keeps (it checks again, control characters included). */
export const MAX_KEY_NAME_LENGTH = 100;

/** Scopes chosen one by one under Advanced: self:enrich and the write scopes, plus the read ones. */
export const ADVANCED_SCOPES = SCOPES;

/** The lifetimes the form offers, in days; 0: the key never expires. */
export const EXPIRY_DAYS = [0, 7, 30, 90] as const;

export type MintForm = Record<string, string | string[] | undefined>;

/** A form the page would not accept; `field` names the input it is about (for aria-invalid). */
export class FormError extends Error {
  constructor(message: string, readonly field?: string) {
    super(message);
  }
}

export function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function single(form: MintForm, name: string): string {
  const values = list(form[name]);
  if (values.length > 1) throw new FormError(`${name} was sent more than once`);
  return (values[0] ?? '').trim();
}

/** Text the store cannot keep (a NUL sent as %00, say) is refused naming its field, before any rule. */
export function refuseUnstorableText(form: MintForm): void {
  for (const [field, values] of Object.entries(form)) {
    for (const value of list(values)) {
      const problem = textProblem(String(value));
      if (problem) throw new FormError(`${field}: ${problem}`, field);
    }
  }
}

export function mintRequestOf(userId: string, form: MintForm): MintKeyRequest {
  refuseUnstorableText(form);
  const mode = single(form, 'preset');
  if (mode !== 'read' && mode !== 'advanced') throw new FormError('choose the Read preset or Advanced', 'preset');
  const chosen = list(form.scopes);
  const unknown = chosen.filter((s) => !isScope(s));
  if (unknown.length > 0) throw new FormError(`unknown scope: ${unknown.join(', ')}`, 'scopes');
  if (mode === 'advanced' && chosen.length === 0) throw new FormError('under Advanced, choose at least one scope', 'scopes');
  if (mode === 'read' && chosen.length > 0) {
    throw new FormError(`the Read preset has its own scopes: choose Advanced to pick ${chosen.join(', ')}, or untick them`, 'scopes');
  }
  const environment = single(form, 'environment') || DEFAULT_KEY_ENVIRONMENT;
  if (!keyEnvironments.isName(environment)) throw new FormError('environment must be live or test', 'environment');
  const expiryText = single(form, 'expires_in_days') || '0';
  const expiryDays = EXPIRY_DAYS.find((d) => String(d) === expiryText);
  if (expiryDays === undefined) throw new FormError('choose when the key expires: never, or in 7, 30 or 90 days', 'expires_in_days');
  const rateText = single(form, 'requested_rate');
  const rate = rateText === '' ? 0 : Number(rateText);
  if (!Number.isInteger(rate) || rate < 0) throw new FormError('requested rate must be a whole number of requests per minute', 'requested_rate');
  // Ticked communities of the user's reach; none ticked: no allowlist (the key reaches all of it).
  // Identity re-checks that each one is in the user's reach.
  const ticked = [...new Set(list(form.allowlist).map((id) => id.trim()).filter(Boolean))];
  const allowlist = ticked.length === 0 ? undefined : { communityIds: ticked };
  const name = single(form, 'name');
  if ([...name].length > MAX_KEY_NAME_LENGTH) throw new FormError(`name is at most ${MAX_KEY_NAME_LENGTH} characters`, 'name');
  return {
    userId,
    name,
    preset: mode === 'read' ? 'read' : '',
    scopes: mode === 'read' ? [] : chosen,
    environment: keyEnvironments.toEnum(environment),
    requestedRate: rate,
    allowlist,
    expiresInSeconds: expiryDays * 24 * 3600,
    id: '',
    secret: '',
  };
}

/** What the form says beside a scope: write scopes need the community owner's consent to writes. */
export function scopeHint(scope: (typeof SCOPES)[number]): string {
  switch (SCOPE_TIER[scope]) {
    case 'read':
      return 'read-only';
    case 'self':
      return 'billable: enriches your own profile';
    case 'write':
      return "works only where the community's owner has enabled API writes";
    case 'webhooks':
      return 'events and webhook endpoints; each event only where its resource is readable';
  }
}
