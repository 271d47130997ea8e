/**
 * Records core/v1 Events on PetSets and pods, so `kubectl describe` and `kubectl get events`
 * tell the story of a rollout. Repeats of the same (object, reason, message) within the
 * aggregation window bump `count` on the existing Event instead of creating a new one, as
 * kubelet's and client-go's recorders do. Recording never fails a sync: it is best effort.
 */
import { randomBytes } from "node:crypto";
import {
  CoreV1Api,
  type CoreV1Event,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
} from "@kubernetes/client-node";
import type { Clock } from "../util/clock.js";
import type { Logger } from "../util/logger.js";

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
  const recent = new Map<string, { name: string; count: number; at: number }>();
  return {
    async record(target, event) {
      const key = `${target.namespace}/${target.kind}/${target.name}/${event.reason}/${event.message}`;
      const now = deps.clock.now();
      const seen = recent.get(key);
      try {
        if (seen && now - seen.at < windowMs) {
          seen.count++;
          seen.at = now;
          await api.patchNamespacedEvent(
            {
              name: seen.name,
              namespace: target.namespace,
              body: { count: seen.count, lastTimestamp: new Date(now).toISOString() },
            },
            setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
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
        await api.createNamespacedEvent({ namespace: target.namespace, body });
        recent.set(key, { name, count: 1, at: now });
        if (recent.size > 4096) pruneOld(recent, now, windowMs);
      } catch (err) {
        recent.delete(key);
        deps.logger.debug({ err: String(err), reason: event.reason }, "event not recorded");
      }
    },
  };
}

function pruneOld(recent: Map<string, { at: number }>, now: number, windowMs: number): void {
  for (const [k, v] of recent) if (now - v.at >= windowMs) recent.delete(k);
}
