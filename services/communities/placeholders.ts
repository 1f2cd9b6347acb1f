// Placeholder auth accounts (identity service) of unclaimed profiles created by a bulk add, and
// their removal when an erasure leaves such a profile in no community. The work is recorded as a
// task in the same transaction as the profile change (communities.placeholder_tasks), attempted
// right after the commit, and retried by the background sweeper (task-sweeper.ts) until it succeeds — so a crash or
// an unreachable identity service delays it but never loses it. Both identity calls are
// idempotent by profile id, so doing a task twice is harmless.
import type { CommunitiesContext } from './communities-context.js';
import { createMemberWriteRepository, type PlaceholderTaskRow } from './member-write.repository.js';
import { asCommunitiesService } from './remote.js';

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Gives a placeholder profile its auth account (task `create_account`). True when the profile has
 * one afterwards (or needs none any more); false when the attempt failed and the task stays.
 */
export async function runCreateAccount(context: CommunitiesContext, profileId: string, requestId?: string): Promise<boolean> {
  const writes = createMemberWriteRepository(context.deps.db);
  try {
    const profile = await context.repo.findProfile(profileId);
    if (!profile || profile.user_id || profile.placeholder_user_id) {
      // Erased (its delete task covers any account), claimed meanwhile, or done already.
      await writes.deleteTask('create_account', profileId);
      return true;
    }
    const options = await asCommunitiesService(context, requestId);
    const { userId } = await context.deps.clients.identity.createPlaceholderAccount(
      { profileId, email: profile.email ?? '', name: profile.name },
      options,
    );
    if (!(await writes.setPlaceholderUser(profileId, userId)) && !(await context.repo.findProfile(profileId))) {
      // The profile was erased while its account was being created: that account must go too.
      await context.deps.clients.identity.deletePlaceholderAccount({ userId, profileId }, options);
    }
    await writes.deleteTask('create_account', profileId);
    return true;
  } catch (error) {
    context.deps.logger.warn({ err: error, profileId, requestId }, 'placeholder account creation failed; the sweeper retries it');
    await writes.failTask('create_account', profileId, message(error)).catch(() => undefined);
    return false;
  }
}

/**
 * Removes the placeholder auth account of an erased profile (task `delete_account`). Returns
 * whether an account was deleted, or undefined when the attempt failed and the task stays.
 */
export async function runDeleteAccount(
  context: CommunitiesContext,
  profileId: string,
  userId: string | null,
  requestId?: string,
): Promise<boolean | undefined> {
  const writes = createMemberWriteRepository(context.deps.db);
  try {
    const options = await asCommunitiesService(context, requestId);
    const { deleted } = await context.deps.clients.identity.deletePlaceholderAccount({ userId: userId ?? '', profileId }, options);
    await writes.deleteTask('delete_account', profileId);
    return deleted;
  } catch (error) {
    context.deps.logger.warn({ err: error, profileId, requestId }, 'placeholder account removal failed; the sweeper retries it');
    await writes.failTask('delete_account', profileId, message(error)).catch(() => undefined);
    return undefined;
  }
}

async function runTask(context: CommunitiesContext, task: PlaceholderTaskRow): Promise<void> {
  if (task.kind === 'create_account') await runCreateAccount(context, task.profile_id);
  else await runDeleteAccount(context, task.profile_id, task.user_id);
}

/** One pass over the tasks older than `graceMs` (younger ones are left to their inline attempt). */
export async function sweepPlaceholderTasks(context: CommunitiesContext, graceMs: number, shouldStop: () => boolean): Promise<void> {
  const tasks = await createMemberWriteRepository(context.deps.db).dueTasks(graceMs, 100);
  for (const task of tasks) {
    if (shouldStop()) return;
    await runTask(context, task);
  }
}
