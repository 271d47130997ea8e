/**
 * The controller replicas of a chaos run, supervised as a Deployment would: each is
 * `petset controller` as a child process (test/support/controller.ts); any replica that exits
 * is replaced. The fleet injects the process faults and records what they showed:
 * - kill: SIGKILL the Lease holder once it has led for `minLeadMs` (waiting up to a minute
 *   for a leader). A kill never falls on a replica that does not lead: under load a replacement
 *   takes ~10 s to start and a Lease to take over, and killing it before it led (as the fleet
 *   once did after 12 s without a leader) left the PetSets with no controller for the whole
 *   fault window (seed 508813: no controller write from +20 s to +120 s);
 * - freeze: with a second replica running, SIGSTOP the leader, wait until the other holds the
 *   Lease, SIGCONT: the resumed one must exit without a single write (fencing). "The leader" is
 *   the Lease's holder; a replica frozen after its acquiring write was stored but before it read
 *   the answer never learnt it led (on resume the request's timeout fires before the answer is
 *   read): it stays a candidate, which is right, so it is judged on its writes only;
 * - a crash is an exit we did not cause: not our signal, and not the documented exit 1 of a
 *   replica that lost its Lease ("lost leadership").
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import { eventually } from "../support/cluster.js";
import { type ControllerProcess, leaseHolder, startControllerProcess } from "../support/controller.js";

/**
 * Leases of 8 s (renew deadline 6 s, retry 2 s), between the tests' 4 s and production's 15 s:
 * on this shared 2-core machine under load a renewal sometimes takes over 3 s, and a leader
 * that is not sure of its Lease stops writing (docs/operations.md, "Fencing").
 */
const CHAOS_LEASE = { durationS: 8, renewDeadlineS: 6, retryPeriodS: 2 };

export interface Crash {
  identity: string;
  code: number | null;
  /** The last log lines before the exit. */
  logTail: string;
}

export interface FencingBreach {
  identity: string;
  message: string;
}

export interface FleetCounts {
  started: number;
  kills: number;
  freezes: number;
  /** Replicas that lost their Lease and exited 1, as documented (e.g. while the API server restarted). */
  steppedDown: number;
  /** Frozen holders that had not yet learnt they led: they stayed candidates after resuming. */
  frozenCandidates: number;
}

/** A replica as the judges see it afterwards: its log, when it exited, when it was frozen. */
export interface ReplicaHistory {
  identity: string;
  log(): string;
  exitedAt?: number;
  frozenAt?: number;
}

interface Replica {
  proc: ControllerProcess;
  /** We signalled it: its exit is no crash. */
  caused: boolean;
  /** When the harness first saw it hold the Lease. */
  ledSince?: number;
}

export interface FleetOptions {
  /** What the controllers connect with (a fault proxy's kubeconfig plugs in here). */
  controllerKubeConfig: KubeConfig;
  /** Where the Lease is read (admin). */
  kubeConfig: KubeConfig;
  namespace: string;
  replicas: number;
  writesBy(userAgent: string, since: Date): Promise<{ verb: string; uri: string }[]>;
  /** A leader works at least this long before it is killed (the schedule, not a condition). */
  minLeadMs?: number;
}

export class ControllerFleet {
  readonly crashes: Crash[] = [];
  readonly fencing: FencingBreach[] = [];
  readonly counts: FleetCounts = { started: 0, kills: 0, freezes: 0, steppedDown: 0, frozenCandidates: 0 };
  private readonly live = new Set<Replica>();
  /** Every replica started, with when it exited or was frozen (node-serving.ts reads it). */
  readonly history: ReplicaHistory[] = [];
  private lastLog = "";
  private stopping = false;

  constructor(private readonly opts: FleetOptions) {}

  start(): void {
    while (this.live.size < this.opts.replicas) this.spawn();
  }

  private spawn(): Replica {
    const proc = startControllerProcess(
      { controllerKubeConfig: this.opts.controllerKubeConfig },
      this.opts.namespace,
      { lease: CHAOS_LEASE },
    );
    const replica: Replica = { proc, caused: false };
    const past: ReplicaHistory = { identity: proc.identity, log: () => proc.log() };
    this.history.push(past);
    this.live.add(replica);
    this.counts.started++;
    void proc.exited.then((code) => {
      past.exitedAt = Date.now();
      this.live.delete(replica);
      this.lastLog = proc.log();
      // CHAOS_CONTROLLER_LOGS=DIR keeps every replica's whole log (DIR/<namespace>-<identity>.log).
      const dir = process.env.CHAOS_CONTROLLER_LOGS;
      if (dir) appendFileSync(join(dir, `${this.opts.namespace}-${proc.identity}.log`), proc.log());
      if (!replica.caused && code !== 0) {
        const log = proc.log();
        if (code === 1 && log.includes("lost leadership")) this.counts.steppedDown++;
        else
          this.crashes.push({
            identity: proc.identity,
            code,
            logTail: log.split("\n").slice(-15).join("\n"),
          });
      }
      if (!this.stopping) this.start();
    });
    return replica;
  }

  private async holder(): Promise<Replica | undefined> {
    const id = await leaseHolder(this.opts.kubeConfig, this.opts.namespace);
    const leader = [...this.live].find((r) => r.proc.identity === id);
    if (leader) leader.ledSince ??= Date.now();
    return leader;
  }

  /**
   * SIGKILL the leader once one leads and has led for `minLeadMs`; a replacement starts at
   * once. No leader within a minute is the harness's error (the caller records it).
   */
  async kill(): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      if (this.live.size === 0) this.start();
      const leader = await eventually("a replica leads", () => this.holder(), 60_000, 200);
      const wait = (this.opts.minLeadMs ?? 0) - (Date.now() - (leader.ledSince ?? Date.now()));
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      // Still the leader (it may have stepped down meanwhile): else wait for the next one.
      if ((await this.holder()) !== leader) continue;
      leader.caused = true;
      this.counts.kills++;
      await leader.proc.kill();
      return;
    }
    throw new Error("the leader changed under each of 5 attempts to kill it");
  }

  /** SIGSTOP the leader past its Lease, SIGCONT once another replica leads; check the fence. */
  async freeze(): Promise<void> {
    if (this.live.size < 2) this.spawn();
    // A holder that has said it leads: the freeze tests a leader's fencing, not a candidate's.
    const leader = await eventually(
      "a replica leads and knows it",
      async () => {
        const h = await this.holder();
        return h?.proc.log().includes("became leader") ? h : undefined;
      },
      60_000,
      100,
    );
    const pid = leader.proc.child.pid;
    if (pid === undefined) return;
    leader.caused = true;
    this.counts.freezes++;
    const past = this.history.find((h) => h.identity === leader.proc.identity);
    if (past) past.frozenAt ??= Date.now();
    process.kill(pid, "SIGSTOP");
    try {
      if (this.live.size < 2) this.spawn();
      await eventually(
        "another replica takes the Lease from the frozen leader",
        async () => {
          const id = await leaseHolder(this.opts.kubeConfig, this.opts.namespace);
          return id !== "" && id !== leader.proc.identity ? true : undefined;
        },
        60_000,
        200,
      );
    } finally {
      process.kill(pid, "SIGCONT");
    }
    const resumedAt = new Date();
    // Everything it logged before the freeze has been read by now (the takeover took seconds).
    const ledBeforeFreeze = leader.proc.log().includes("became leader");
    const exited = await Promise.race([
      leader.proc.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 20_000)),
    ]);
    if (!exited && ledBeforeFreeze) {
      const tail = leader.proc.log().split("\n").slice(-12).join("\n");
      this.fencing.push({
        identity: leader.proc.identity,
        message: `still running 20 s after it was resumed without the Lease; its log ends:\n${tail}`,
      });
      await leader.proc.kill();
    } else if (!exited) this.counts.frozenCandidates++;
    const writes = await this.opts.writesBy(`(${leader.proc.identity})`, resumedAt);
    if (writes.length > 0)
      this.fencing.push({
        identity: leader.proc.identity,
        message: `wrote after it was resumed without the Lease: ${writes.map((w) => `${w.verb} ${w.uri}`).join(", ")}`,
      });
  }

  /** Some replica holds the Lease (the run waits for this before judging convergence). */
  async waitLeader(timeoutMs: number): Promise<void> {
    await eventually("a controller replica leads", () => this.holder(), timeoutMs, 200);
  }

  /** The last lines of the leader's log (or of the last replica that exited). */
  async logTail(lines: number): Promise<string> {
    const log = (await this.holder().catch(() => undefined))?.proc.log() ?? this.lastLog;
    return log.split("\n").slice(-lines).join("\n");
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.live].map(async (r) => {
        r.caused = true;
        if (r.proc.child.pid !== undefined) r.proc.child.kill("SIGCONT");
        await r.proc.stop();
      }),
    );
  }
}
