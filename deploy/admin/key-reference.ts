// What `keys revoke` is given: a key id, or the display prefix people see in lists and on the
// settings app (`svc_test_t5LAD6`, or a shorter start of one). A prefix must name exactly one key:
// none is not_found, several are refused by name so the operator picks one by id.
import type { CallOptions, ServiceClients } from '../../services/kit/grpc/client.js';

/** How many matches are named when a prefix is ambiguous. */
const NAMED = 5;

export function isKeyPrefix(reference: string): boolean {
  return /^svc_(live|test)_/.test(reference);
}

/** The id of the key the reference names (an id is returned as given: identity decides whether it exists). */
export async function keyIdOf(clients: ServiceClients, options: CallOptions, reference: string): Promise<string> {
  if (!isKeyPrefix(reference)) return reference;
  const { keys, nextPageToken } = await clients.identity.listKeysByPrefix({ prefix: reference, pageSize: NAMED, pageToken: '' }, options);
  if (keys.length === 0) throw new Error(`not_found: no key has the prefix ${reference}`);
  if (keys.length > 1) {
    const named = keys.map((k) => `${k.id} (${k.prefix})`).join(', ');
    throw new Error(`ambiguous: the prefix ${reference} matches more than one key: ${named}${nextPageToken ? ', …' : ''}; give the key id instead`);
  }
  return keys[0]!.id;
}
