// What a later `npm start` prints instead of the secret and the link it showed once: commands that
// work as printed — for the demo user when there is one, with the data folder when not the default.
// Identity answers from a started system, one with the demo user and one without.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../services/kit/config.js';
import { startTestSystem, type TestSystem } from '../../test/helpers/test-system.js';
import { wayBackIn } from './way-back-in.js';

let withDemo: TestSystem;
let withoutDemo: TestSystem;
beforeAll(async () => {
  withDemo = await startTestSystem({ seed: { users: [{ id: 'u_demo', email: 'demo@example.org', name: 'Demo', plan: 'paid' }] } });
  withoutDemo = await startTestSystem({ seed: { users: [{ id: 'u_other', email: 'other@example.org', name: 'Other', plan: 'free' }] } });
});
afterAll(async () => {
  await withDemo?.stop();
  await withoutDemo?.stop();
});

describe('the way back in', () => {
  it('names the demo user, with no DATA_DIR on the default folder', async () => {
    const lines = await wayBackIn(loadConfig({}), withDemo);
    expect(lines).toEqual([
      'Sign in:   npm run admin -- users sign-in-link --user u_demo   (a one-time link to the settings)',
      'New key:   npm run admin -- keys mint --user u_demo --scopes search:read,profile:read,enrich:read,self:enrich,member:write,enrich:write,webhooks:read,webhooks:write   (prints its secret once)',
    ]);
  });

  it('says USER_ID and how to list users without a demo user; another folder is named, quoted when needed', async () => {
    const lines = await wayBackIn(loadConfig({ DATA_DIR: "/srv/expert data/it's" }), withoutDemo);
    expect(lines).toEqual([
      `Sign in:   DATA_DIR='/srv/expert data/it'\\''s' npm run admin -- users sign-in-link --user USER_ID   (a one-time link to the settings)`,
      expect.stringMatching(/^New key: {3}DATA_DIR='\/srv\/expert data\/it'\\''s' npm run admin -- keys mint --user USER_ID --scopes /),
      `Users:     DATA_DIR='/srv/expert data/it'\\''s' npm run admin -- users list`,
    ]);
    const plain = await wayBackIn(loadConfig({ DATA_DIR: '/var/lib/expertnet' }), withDemo);
    expect(plain[0]).toBe('Sign in:   DATA_DIR=/var/lib/expertnet npm run admin -- users sign-in-link --user u_demo   (a one-time link to the settings)');
  });
});
