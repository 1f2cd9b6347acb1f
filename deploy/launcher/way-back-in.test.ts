// What a later `npm start` prints instead of the secret and the link it showed once: commands that
// work as printed — for the demo user when there is one, with the data folder when not the default.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/kit/config.js';
import type { ServiceClients } from '../../services/kit/grpc/client.js';
import { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { generateSecrets } from '../../services/kit/secrets.js';
import { wayBackIn } from './way-back-in.js';

const signer = new TokenSigner(generateSecrets().callerTokenPrivateKey);
/** Identity as far as wayBackIn asks it: whether the user exists. */
const identityWith = (users: string[]) => ({
  identity: { getUser: async ({ userId }: { userId: string }) => (users.includes(userId) ? { user: { id: userId } } : Promise.reject(new Error('not_found'))) },
}) as unknown as ServiceClients;

describe('the way back in', () => {
  it('names the demo user, with no DATA_DIR on the default folder', async () => {
    const lines = await wayBackIn(loadConfig({}), { clients: identityWith(['u_demo']), signer });
    expect(lines).toEqual([
      'Sign in:   npm run admin -- users sign-in-link --user u_demo   (a one-time link to the settings)',
      'New key:   npm run admin -- keys mint --user u_demo --scopes search:read,profile:read,enrich:read,self:enrich,member:write,enrich:write   (prints its secret once)',
    ]);
  });

  it('says USER_ID and how to list users without a demo user; another folder is named, quoted when needed', async () => {
    const lines = await wayBackIn(loadConfig({ DATA_DIR: "/srv/expert data/it's" }), { clients: identityWith([]), signer });
    expect(lines).toEqual([
      `Sign in:   DATA_DIR='/srv/expert data/it'\\''s' npm run admin -- users sign-in-link --user USER_ID   (a one-time link to the settings)`,
      expect.stringMatching(/^New key: {3}DATA_DIR='\/srv\/expert data\/it'\\''s' npm run admin -- keys mint --user USER_ID --scopes /),
      `Users:     DATA_DIR='/srv/expert data/it'\\''s' npm run admin -- users list`,
    ]);
    const plain = await wayBackIn(loadConfig({ DATA_DIR: '/var/lib/expertnet' }), { clients: identityWith(['u_demo']), signer });
    expect(plain[0]).toBe('Sign in:   DATA_DIR=/var/lib/expertnet npm run admin -- users sign-in-link --user u_demo   (a one-time link to the settings)');
  });
});
