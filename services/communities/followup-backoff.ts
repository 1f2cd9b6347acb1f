// When a failed follow-up (index or erasure) is tried again: 2^attempts seconds after its failure,
// at most an hour, as SQL both repositories share. Its due moment orders the sweeper's batch, so
// rows that keep failing move behind the ones that have not failed yet. Only a refusal backs off:
// a failure because a service or the store could not answer (an outage) leaves the row due at the
// next sweep, so everything owed goes through within seconds of the recovery.
import { isDependencyUnavailable } from '../kit/dependencies/unavailable.js';
import { isUnavailable } from '../kit/grpc/errors.js';

/** Whether this failure of a follow-up backs it off (a refusal), rather than leaving it due (an outage). */
export function backsOff(error: unknown): boolean {
  return !isUnavailable(error) && !isDependencyUnavailable(error);
}

/**
 * SQL, in the UPDATE that counts a failure (`attempts = attempts + 1`, whose SET reads the row as it
 * was): the next attempt, 2^(attempts counting this one) seconds from now, at most an hour.
 */
export const NEXT_ATTEMPT_AFTER_FAILURE = `now() + make_interval(secs => least(power(2, least(attempts + 1, 12)), 3600))`;

/** SQL: the next attempt after a failure, when `$flag` (a boolean parameter) says it backs off; else due at once. */
export const nextAttempt = (flag: string) => `CASE WHEN ${flag}::boolean THEN ${NEXT_ATTEMPT_AFTER_FAILURE} END`;

/** SQL: rows due now, past their grace (`$1` ms after creation, the inline attempt's chance) and their backoff. */
export const DUE_NOW = `created_at <= now() - make_interval(secs => $1::double precision / 1000)
   AND (next_attempt_at IS NULL OR next_attempt_at <= now())`;

/** SQL: the sweeper's order, soonest due first. */
export const DUE_ORDER = 'coalesce(next_attempt_at, created_at), community_id, profile_id';
