/**
 * Clocks that judge only time a controller drove. A version's progress deadline and a hook's
 * timeout are verdicts ("made no progress", "took too long") that lead to a rollback, a pause
 * or a retry. Time during which no replica held the Lease (all replicas down, crash-looping,
 * frozen, or between a leader's death and its successor's caches syncing) says nothing about
 * the version or the hook: nobody moved the pets or watched the run. The rules:
 *
 *  - A new leader (and a controller started without election) grants a full period from when
 *    it began driving: the deadline or timeout runs from max(the recorded start, drivingSince).
 *  - Nothing of this is stored: drivingSince is the process's own start of duty, and the
 *    recorded starts (version creation, pod times, a hook record's startedAt) stay in the API.
 *  - The cost: a controller that keeps restarting faster than the deadline never rolls back.
 *    A controller that cannot stay up cannot judge a version; its restarts are the alarm.
 *
 * Found by the chaos campaign (seed 3007 on kube-apiserver): a healed version was rolled back
 * by autoRollback right after a takeover, its deadline having passed while controllers were
 * killed and the leader frozen; the preUpdate hook of that rollout "timed out" the same way
 * without having run. Deployments' progressDeadlineSeconds counts wall time, but a Deployment
 * does not roll itself back.
 */

/** The moment a period that began at `startedAt` is judged from, for this controller. */
export function judgedFrom(startedAt: number, drivingSince: number | undefined): number {
  return drivingSince === undefined ? startedAt : Math.max(startedAt, drivingSince);
}

/** When a hook run recorded as started at `startedAt` (ISO) times out; NaN when unreadable. */
export function hookDeadline(
  startedAt: string,
  timeoutSeconds: number,
  drivingSince: number | undefined,
): number {
  const started = Date.parse(startedAt);
  if (Number.isNaN(started)) return Number.NaN;
  return judgedFrom(started, drivingSince) + timeoutSeconds * 1000;
}
