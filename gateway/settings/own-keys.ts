// The signed-in user's own keys as the settings pages read them (newest first, as identity lists
// them): the created page, and the roll and rename pages, find their key here.
import type { FastifyRequest } from 'fastify';
import type { ApiKey } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { asUser, type SettingsContext } from './context.js';
import { PageError } from './page-error.js';

const LIST_PAGE_SIZE = 100;

export async function ownKeysOf(context: SettingsContext, request: FastifyRequest): Promise<ApiKey[]> {
  const userId = request.user!.id;
  return (await context.clients.identity.listKeys({ userId, pageSize: LIST_PAGE_SIZE, pageToken: '' }, await asUser(context, request))).keys;
}

/** One of the user's own keys, or a 404 page (another user's key is not found either). */
export function ownKey(keys: readonly ApiKey[], keyId: string): ApiKey {
  const key = keys.find((k) => k.id === keyId);
  if (!key) throw new PageError(404, 'There is no key of yours with that id.');
  return key;
}
