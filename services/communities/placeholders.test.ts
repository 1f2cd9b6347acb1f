// Placeholder-account tasks survive failures: what the inline attempt cannot do (identity
// unreachable, a crash between the commit and the call) the sweeper finishes, and an account
// created for a profile erased meanwhile is removed again.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { communitiesContext } from '../../test/helpers/communities-context.js';
import { openTestDatabase } from '../../test/helpers/stores.js';
import type { Database } from '../kit/db/database.js';
import type { ServiceClients } from '../kit/grpc/client.js';
import type { CommunitiesContext } from './communities-context.js';
import { createMemberWriteRepository } from './member-write.repository.js';
import { runCreateAccount, runDeleteAccount } from './placeholders.js';
import { startTaskSweeper } from './task-sweeper.js';

describe('placeholder-account tasks', () => {
  let db: Database;
  let close: () => Promise<void>;
  let context: CommunitiesContext;
  let identityDown = false;
  let onCreate: () => Promise<void> = async () => undefined;
  const accounts = new Map<string, string>(); // profile id -> user id
  const deletions: Array<{ userId: string; profileId: string }> = [];

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase('pglite'));
    const identity = {
      async createPlaceholderAccount({ profileId }: { profileId: string }) {
        if (identityDown) throw new Error('UNAVAILABLE');
        await onCreate();
        if (!accounts.has(profileId)) accounts.set(profileId, `u_ph_${profileId}`);
        return { userId: accounts.get(profileId)! };
      },
      async deletePlaceholderAccount(request: { userId: string; profileId: string }) {
        if (identityDown) throw new Error('UNAVAILABLE');
        deletions.push(request);
        return { deleted: accounts.delete(request.profileId) };
      },
    };
    context = communitiesContext(db, { identity } as unknown as Partial<ServiceClients>);
  });
  afterAll(async () => close());
  beforeEach(() => {
    identityDown = false;
    onCreate = async () => undefined;
  });

  const writes = () => createMemberWriteRepository(db);
  async function newPlaceholder(id: string) {
    await writes().insertProfile({ id, name: id, headline: null, bio: null, organization: null, location: null, email: `${id}@example.org`, linkedin_url: null, orcid: null });
    await writes().addTask('create_account', id, null);
  }
  const tasks = () => db.query<{ kind: string; profile_id: string; attempts: number }>('SELECT kind, profile_id, attempts FROM communities.placeholder_tasks ORDER BY kind, profile_id');

  it('keeps a failed account creation as a task, and the sweeper finishes it', async () => {
    await newPlaceholder('p_one');
    identityDown = true;
    expect(await runCreateAccount(context, 'p_one')).toBe(false);
    expect(await tasks()).toEqual([{ kind: 'create_account', profile_id: 'p_one', attempts: 1 }]);
    identityDown = false;
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 0 });
    await sweeper.sweep();
    await sweeper.stop();
    expect(await tasks()).toEqual([]);
    expect((await context.repo.findProfile('p_one'))!.placeholder_user_id).toBe('u_ph_p_one');
  });

  it('removes an account whose profile was erased while it was being created', async () => {
    await newPlaceholder('p_race');
    onCreate = async () => {
      await db.query(`DELETE FROM communities.profiles WHERE id = 'p_race'`);
    };
    expect(await runCreateAccount(context, 'p_race')).toBe(true);
    expect(accounts.has('p_race')).toBe(false);
    expect(deletions.at(-1)).toEqual({ userId: 'u_ph_p_race', profileId: 'p_race' });
    expect(await tasks()).toEqual([]);
  });

  it('keeps a failed account removal (erasure crashed or identity down) until the sweeper does it', async () => {
    accounts.set('p_gone', 'u_ph_p_gone');
    await writes().addTask('delete_account', 'p_gone', 'u_ph_p_gone');
    identityDown = true;
    expect(await runDeleteAccount(context, 'p_gone', 'u_ph_p_gone')).toBeUndefined();
    expect(await tasks()).toEqual([{ kind: 'delete_account', profile_id: 'p_gone', attempts: 1 }]);
    identityDown = false;
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 0 });
    await sweeper.sweep();
    await sweeper.stop();
    expect(accounts.has('p_gone')).toBe(false);
    expect(await tasks()).toEqual([]);
  });

  it('counts a task written in the same millisecond as a sweep with no grace as due (the embedded store’s clock)', async () => {
    for (let i = 0; i < 10; i++) {
      await writes().addTask('create_account', `p_now_${i}`, null);
      expect((await writes().dueTasks(0, 100)).map((t) => t.profile_id)).toContain(`p_now_${i}`);
    }
    await db.query(`DELETE FROM communities.placeholder_tasks WHERE profile_id LIKE 'p_now_%'`);
  });

  it('leaves young tasks to their inline attempt', async () => {
    await newPlaceholder('p_young');
    const sweeper = startTaskSweeper(context, { intervalMs: 60_000, graceMs: 60_000 });
    await sweeper.sweep();
    await sweeper.stop();
    expect(await tasks()).toEqual([{ kind: 'create_account', profile_id: 'p_young', attempts: 0 }]);
  });
});
