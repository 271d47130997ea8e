/**
 * Records core/v1 Events on PetSets and pods, so `kubectl describe` and `kubectl get events`
 * tell the story of a rollout. Repeats of the same (object, reason, message) within the
 * aggregation window bump `count` on the existing Event instead of creating a new one, as
 * kubelet's and client-go's recorders do. Recording never fails a sync: it is best effort.
 *
 * What it remembers for that is bounded as client-go's EventCorrelator is (an LRU of 4,096
 * keys): most messages name one pod ("create Pod web-3 ..."), so populating 10,000 PetSets
 * recorded 40,000 keys that never repeat, and a window-only prune kept them all (about 11 MiB)
 * until the next Event after ten quiet minutes (issue 29's memory target).
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api, type CoreV1Event, type KubeConfig, PatchStrategy } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";
import { asJson } from "./json-body.js";
import { metadataAnswer, metadataAnswerPatch } from "./metadata-answer.js";

export interface EventTarget {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string | undefined;
}

export interface RecordedEvent {
  type: "Normal" | "Warning";
  reason: string;
  message: string;
}

export interface EventRecorder {
  record(target: EventTarget, event: RecordedEvent): Promise<void>;
}

const COMPONENT = "petset-controller";

export function createEventRecorder(deps: {
  kubeConfig: KubeConfig;
  clock: Clock;
  logger: Logger;
  windowMs?: number;
}): EventRecorder {
  const api = deps.kubeConfig.makeApiClient(CoreV1Api);
  const windowMs = deps.windowMs ?? 10 * 60_000;
  const recent = new RecentEvents(windowMs);
  return {
    async record(target, event) {
      const key = `${target.namespace}/${target.kind}/${target.name}/${event.reason}/${event.message}`;
      const now = deps.clock.now();
      const seen = recent.hit(key, now);
      try {
        if (seen) {
          await api.patchNamespacedEvent(
            {
              name: seen.name,
              namespace: target.namespace,
              body: { count: seen.count, lastTimestamp: new Date(now).toISOString() },
            },
            metadataAnswerPatch(PatchStrategy.MergePatch),
          );
          return;
        }
        const name = `${target.name}.${randomBytes(8).toString("hex")}`;
        const body: CoreV1Event = {
          metadata: { name, namespace: target.namespace },
          involvedObject: {
            apiVersion: target.apiVersion,
            kind: target.kind,
            name: target.name,
            namespace: target.namespace,
            ...(target.uid ? { uid: target.uid } : {}),
          },
          type: event.type,
          reason: event.reason,
          message: event.message,
          source: { component: COMPONENT },
          reportingComponent: COMPONENT,
          reportingInstance: COMPONENT,
          count: 1,
          firstTimestamp: new Date(now),
          lastTimestamp: new Date(now),
        };
        const send = asJson(body, metadataAnswer());
        await api.createNamespacedEvent({ namespace: target.namespace, body: send.body }, send.options);
        recent.remember(key, name, now);
      } catch (err) {
        recent.delete(key);
        deps.logger.debug({ err: String(err), reason: event.reason }, "event not recorded");
      }
    },
  };
}

/** The Events recorded lately, by (object, reason, message): at most `max`, least recent out first. */
export class RecentEvents {
  private readonly entries = new Map<string, { name: string; count: number; at: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly max = 4096,
  ) {}

  /** A repeat within the window: its count and time bumped, now the most recent; else undefined. */
  hit(key: string, now: number): { name: string; count: number } | undefined {
    const seen = this.entries.get(key);
    if (!seen) return undefined;
    this.entries.delete(key);
    if (now - seen.at >= this.windowMs) return undefined;
    seen.count++;
    seen.at = now;
    this.entries.set(key, seen);
    return seen;
  }

  remember(key: string, name: string, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { name, count: 1, at: now });
    while (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
