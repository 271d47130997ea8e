/**
 * The kubelet's node heartbeat Lease (`kube-node-lease/<node>`, kube's NodeLease): each
 * managed node that is not lost (lost-nodes.ts) has its Lease renewed every quarter of the
 * lease duration, as the kubelet does (40 s by default: every 10 s). The node lifecycle
 * controller reads it as the node's liveness. Writes are best effort: a failed renewal is
 * retried at the next tick, as a kubelet that cannot reach the API server would.
 */
import {
  type CoordinationV1Api,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { TimerClock } from "./clock.js";
import { statusCode } from "./writer.js";

const mergePatch = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

export const NodeLeaseNamespace = "kube-node-lease";
/** The kubelet's default --node-lease-duration-seconds. */
export const DefaultNodeLeaseDurationSeconds = 40;

export interface NodeLeaseOptions {
  api: CoordinationV1Api;
  clock: TimerClock;
  logger: Logger;
  /** The nodes to renew for, asked at each tick. */
  nodes: () => readonly string[];
  /** Whether the node is lost now (read from the node cache at each tick). */
  isLost: (node: string) => boolean;
  /** The node's uid, for the Lease's owner reference (kubelet sets one), if known. */
  uidOf: (node: string) => string | undefined;
  durationSeconds?: number;
}

export class NodeLeaseRenewer {
  private cancel: (() => void) | undefined;
  private stopped = false;
  /** Nodes whose renewal is still waiting for its answer: not sent again until it comes. */
  private readonly renewing = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  readonly renewMs: number;
  private readonly duration: number;

  constructor(private readonly o: NodeLeaseOptions) {
    this.duration = o.durationSeconds ?? DefaultNodeLeaseDurationSeconds;
    this.renewMs = Math.max(100, Math.floor((this.duration * 1000) / 4));
  }

  start(): void {
    this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    await Promise.all(this.pending);
  }

  /**
   * Every renewMs, whatever the last renewals' answers: a renewal that waits long (a loaded
   * server) holds back only its own node's next one, never the loop (it once waited on every
   * answer, so one that never came stopped every node's heartbeats for good).
   */
  private run(): void {
    if (this.stopped) return;
    for (const node of this.o.nodes()) {
      if (this.o.isLost(node) || this.renewing.has(node)) continue;
      this.renewing.add(node);
      const p: Promise<void> = this.renew(node).finally(() => {
        this.renewing.delete(node);
        this.pending.delete(p);
      });
      this.pending.add(p);
    }
    this.cancel = this.o.clock.setTimer(this.renewMs, () => this.run());
  }

  private async renew(node: string): Promise<void> {
    const now = new V1MicroTime(this.o.clock.now());
    try {
      await this.o.api.patchNamespacedLease(
        {
          name: node,
          namespace: NodeLeaseNamespace,
          body: { spec: { holderIdentity: node, renewTime: now } },
        },
        mergePatch,
      );
    } catch (err) {
      if (statusCode(err) !== 404) {
        this.o.logger.debug({ err, node }, "simulated kubelet: node lease not renewed");
        return;
      }
      const uid = this.o.uidOf(node);
      await this.o.api
        .createNamespacedLease({
          namespace: NodeLeaseNamespace,
          body: {
            metadata: {
              name: node,
              namespace: NodeLeaseNamespace,
              ...(uid ? { ownerReferences: [{ apiVersion: "v1", kind: "Node", name: node, uid }] } : {}),
            },
            spec: { holderIdentity: node, leaseDurationSeconds: this.duration, renewTime: now },
          },
        })
        .catch((e: unknown) =>
          this.o.logger.debug({ err: e, node }, "simulated kubelet: node lease not created"),
        );
    }
  }
}

/**
 * A Lease duration that fits a node lifecycle grace period: kube's 40 s under its 50 s grace,
 * and four fifths of a shorter grace (at least 1 s), so a node renews about five times per grace.
 */
export function nodeLeaseDurationFor(graceSeconds: number): number {
  return Math.min(DefaultNodeLeaseDurationSeconds, Math.max(1, Math.floor(graceSeconds * 0.8)));
}
