// Who asked for a queued write, as the consent queue names them: the signed-in user's own key, or a
// legacy key of an organization they manage, by its name and display prefix; their connected
// application by its registered name. A credential
// that is not the user's (a delegated community admin's key, say) is named by its id alone: the
// settings app never reads another user's keys.
import type { FastifyRequest } from 'fastify';
import { grantsOfUser } from './grant-list.js';
import { clientNamesOf } from './grant-clients.js';
import { asUser, type SettingsContext } from './context.js';
import { ownKeysOf } from './own-keys.js';

export interface Requester {
  /** "key" or "application". */
  kind: 'key' | 'application';
  name: string;
  /** A key's display prefix (never its secret). */
  prefix?: string;
}

/** Credential id → who it is, for the user's own keys and grants. */
export async function requestersOf(context: SettingsContext, request: FastifyRequest): Promise<Map<string, Requester>> {
  const [keys, grants, organizations] = await Promise.all([
    ownKeysOf(context, request),
    grantsOfUser(context, request),
    context.clients.identity.listOrganizationKeys({ userId: request.user!.id }, await asUser(context, request)),
  ]);
  const names = await clientNamesOf(context, grants);
  const requesters = new Map<string, Requester>();
  const organizationKeys = organizations.organizations.flatMap((o) => o.keys);
  for (const key of [...keys, ...organizationKeys]) requesters.set(key.id, { kind: 'key', name: key.name || '(unnamed key)', prefix: key.prefix });
  for (const grant of grants) requesters.set(grant.id, { kind: 'application', name: names.get(grant.clientId) ?? grant.clientId });
  return requesters;
}
