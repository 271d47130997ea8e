/**
 * One writer: replicas compete for a coordination.k8s.io Lease. Every write to the Lease
 * carries the resourceVersion that was read, so two candidates can never both win. As in
 * client-go, expiry is judged by when *we* last saw the record change (local clock), not by
 * the holder's timestamps, so clock skew between machines cannot steal a live lease.
 *
 * Fencing (lease-guard.ts): the elector feeds a LeaseFence with the monotonic time each
 * successful renew was *sent*; the fence lets writes through for `leaseDuration - margin`
 * after it (margin = leaseDuration - renewDeadline by default). Each Lease request is
 * aborted at a quarter of the renew deadline (client-go's NewFromKubeconfig uses half), so
 * a hung renew neither keeps a replica believing it leads nor, alone, costs it the lease:
 * an attempt whose read and write both hang takes half the deadline, and after a failed
 * attempt and a hung one a third still fits before the deadline; a
 * Lease update is sent only on a read younger than the renew deadline. A leader that reads
 * another holder has lost at once, without waiting for its own clock to say so.
 */
import { CoordinationV1Api, type KubeConfig, type V1Lease, V1MicroTime } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { isConflict, isNotFound } from "./api-errors.js";
import { connectThenCheck } from "./fenced-connection.js";
import {
  LeaseFence,
  type LeaseGuard,
  LeaseLostError,
  type MonotonicClock,
  makeApiClientWith,
  systemMonotonicClock,
} from "./lease-guard.js";

export interface LeaderElectionOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  identity: string;
  clock: Clock;
  logger: Logger;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Writes stop this long before the Lease could expire (default leaseDuration - renewDeadline). */
  fenceMarginMs?: number;
  monotonicClock?: MonotonicClock;
  /** Extra headers on every Lease request (the User-Agent naming this replica, for audit logs). */
  headers?: Record<string, string>;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

export interface LeaderElector {
  isLeader(): boolean;
  /** Fences every write of this replica (see lease-guard.ts). */
  readonly guard: LeaseGuard;
  /**
   * Stops renewing. With `release` (the default) a held lease is handed back at once; without
   * it the lease is left to expire, as after a crash.
   */
  stop(opts?: { release?: boolean }): Promise<void>;
}

export function startLeaderElection(opts: LeaderElectionOptions): LeaderElector {
  const leaseDurationMs = opts.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = opts.retryPeriodMs ?? 2_000;
  const mono = opts.monotonicClock ?? systemMonotonicClock;
  const marginMs = opts.fenceMarginMs ?? leaseDurationMs - renewDeadlineMs;
  const requestTimeoutMs = Math.max(1_000, renewDeadlineMs / 4);
  const fence = new LeaseFence(mono, Math.max(0, leaseDurationMs - marginMs));
  /** Monotonic time the current acquire/renew attempt (or release) began with its read. */
  let attemptStartedAt = 0;
  const fresh = () => mono.now() - attemptStartedAt < renewDeadlineMs;
  const api = makeApiClientWith(opts.kubeConfig, CoordinationV1Api, async (ctx) => {
    for (const [k, v] of Object.entries(opts.headers ?? {})) ctx.setHeaderParam(k, v);
    // A renew that hangs must not cost the lease: each request gets a quarter of the renew
    // deadline (at least 1 s), so retries still fit before it (regression: network-faults
    // on kube-apiserver lost the lease to one reset and one blackholed read at half).
    const signal = AbortSignal.timeout(requestTimeoutMs);
    ctx.setSignal(signal);
    if (String(ctx.getHttpMethod()) === "GET") return;
    // A Lease write is decided on the read before it: checked once connected, as every
    // fenced write (fenced-connection.ts), so a freeze while connecting sends nothing.
    await connectThenCheck(
      ctx.getAgent(),
      ctx.getUrl(),
      () => {
        if (!fresh())
          throw new LeaseLostError("the Lease read this update is based on is older than the renew deadline");
      },
      signal,
    );
  });
  const log = opts.logger.child({ lease: `${opts.namespace}/${opts.name}`, identity: opts.identity });
  let leader = false;
  let stopped = false;
  let lastRenew = 0;
  /** Set when a read showed another holder while this replica led. */
  let takenBy: string | undefined;
  let observed: { key: string; at: number } | undefined;
  let timer: NodeJS.Timeout | undefined;

  const spec = (prev: V1Lease | undefined) => {
    const now = new V1MicroTime(opts.clock.now());
    const wasOurs = prev?.spec?.holderIdentity === opts.identity;
    return {
      holderIdentity: opts.identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime: wasOurs && prev?.spec?.acquireTime ? prev.spec.acquireTime : now,
      renewTime: now,
      leaseTransitions: (prev?.spec?.leaseTransitions ?? 0) + (wasOurs || !prev ? 0 : 1),
    };
  };

  /**
   * One attempt to acquire or renew, begun at monotonic time `startedAt`; true when we hold
   * the lease afterwards. The write is decided on what the read showed: when the read took
   * longer than the renew deadline (the process was frozen, the network hung), that view is
   * too old to act on and nothing is written. Without this check a replica resumed after a
   * SIGSTOP sends the Lease update it had prepared before the freeze (it fails on its
   * resourceVersion, but it is a write from a replica that no longer leads).
   */
  const tryAcquireOrRenew = async (startedAt: number): Promise<boolean> => {
    attemptStartedAt = startedAt;
    let lease: V1Lease;
    try {
      lease = await api.readNamespacedLease({ name: opts.name, namespace: opts.namespace });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (!fresh()) return false;
      await api.createNamespacedLease({
        namespace: opts.namespace,
        body: { metadata: { name: opts.name, namespace: opts.namespace }, spec: spec(undefined) },
      });
      return true;
    }
    const holder = lease.spec?.holderIdentity;
    if (leader && holder !== opts.identity) {
      // Someone else wrote the Lease while we led: lost, whatever our clock says (a machine
      // that was suspended sees less time pass than the others did).
      takenBy = holder ?? "";
      return false;
    }
    const key = `${holder}|${String(lease.spec?.renewTime)}`;
    const now = mono.now();
    if (observed?.key !== key) observed = { key, at: now };
    const duration = (lease.spec?.leaseDurationSeconds ?? 15) * 1000;
    if (holder && holder !== opts.identity && observed.at + duration > now) return false;
    if (!fresh()) return false;
    await api.replaceNamespacedLease({
      name: opts.name,
      namespace: opts.namespace,
      body: { ...lease, spec: spec(lease) },
    });
    return true;
  };

  const tick = async () => {
    if (stopped) return;
    let held = false;
    const sentAt = mono.now();
    try {
      held = await tryAcquireOrRenew(sentAt);
    } catch (err) {
      if (!isConflict(err)) log.warn({ err: String(err) }, "lease update failed");
    }
    const now = mono.now();
    if (held) {
      lastRenew = sentAt;
      fence.renewed(sentAt);
      if (!leader) {
        leader = true;
        log.info("became leader");
        opts.onStartedLeading();
      }
    } else if (leader && (takenBy !== undefined || now - lastRenew > renewDeadlineMs)) {
      // As client-go: a replica that lost the lease never competes again. Its workers are
      // gone (the queue is shut down); winning the lease back would make it a leader that
      // does nothing and keeps every other replica out.
      leader = false;
      stopped = true;
      const lease = `Lease ${opts.namespace}/${opts.name}`;
      fence.lose(
        takenBy !== undefined
          ? `${lease} is held by ${takenBy || "nobody"}`
          : `${lease} not renewed for ${Math.round(now - lastRenew)} ms`,
      );
      log.warn("lost leadership");
      opts.onStoppedLeading();
      return;
    }
    if (!stopped) timer = setTimeout(tick, retryPeriodMs);
  };
  void tick();

  return {
    isLeader: () => leader,
    guard: fence,
    async stop(stopOpts = {}) {
      stopped = true;
      if (timer) clearTimeout(timer);
      fence.lose("stopped");
      if (leader && stopOpts.release === false) {
        leader = false;
        return;
      }
      if (leader) {
        // Release: an expired renewTime lets another replica take over at once.
        try {
          attemptStartedAt = mono.now();
          const lease = await api.readNamespacedLease({ name: opts.name, namespace: opts.namespace });
          if (lease.spec?.holderIdentity === opts.identity) {
            await api.replaceNamespacedLease({
              name: opts.name,
              namespace: opts.namespace,
              body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1 } },
            });
          }
        } catch (err) {
          log.debug({ err: String(err) }, "lease release failed");
        }
        leader = false;
      }
    },
  };
}
