// Placeholder auth accounts of unclaimed profiles added through the API (services/communities):
// made once per profile, and deleted when the profile goes; a real (claimed) account never is.
import { domainError } from '../kit/grpc/errors.js';
import { newId, requireId } from '../kit/ids.js';
import type { IdentityContext } from './identity-context.js';

/** The profile's placeholder account, created unless it exists; its user id either way. */
export async function createPlaceholderAccount(context: IdentityContext, request: { profileId: string; email: string; name: string }): Promise<string> {
  const profileId = requireId(request.profileId, 'profile_id');
  const email = request.email.trim().toLowerCase() || null;
  const name = request.name.trim().slice(0, 300) || 'Unclaimed profile';
  return context.placeholders.ensure({ id: newId('u'), profileId, email, name });
}

/** Whether a placeholder account (by user id and/or profile id) was deleted. */
export async function deletePlaceholderAccount(context: IdentityContext, request: { userId: string; profileId: string }): Promise<boolean> {
  if (!request.userId && !request.profileId) throw domainError('invalid_request', 'give user_id or profile_id');
  // Only rows marked as placeholders are candidates: a real (claimed) account is never deleted.
  const deleted = await context.placeholders.remove(request.userId || null, request.profileId || null);
  return deleted > 0;
}
