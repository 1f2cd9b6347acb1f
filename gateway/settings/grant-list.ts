// The signed-in user's OAuth grants (connected applications), as identity lists them to the user.
import type { FastifyRequest } from 'fastify';
import type { OAuthGrant } from '../../proto/gen/expertnet/identity/v1/identity_service.js';
import { asUser, type SettingsContext } from './context.js';

const LIST_PAGE_SIZE = 100;

export async function grantsOfUser(context: SettingsContext, request: FastifyRequest): Promise<OAuthGrant[]> {
  return (await context.clients.identity.listGrants(
    { userId: request.user!.id, pageSize: LIST_PAGE_SIZE, pageToken: '' }, await asUser(context, request))).grants;
}
