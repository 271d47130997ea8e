/**
 * events.k8s.io/v1 Events are a view of core/v1 Events (one storage, as in kube), so
 * `kubectl get events` shows what controllers record through either API.
 */
import type { KubeObject } from "../types.js";

/** events.k8s.io/v1 field → core/v1 field. */
const RENAMES: [string, string][] = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
  ["reportingController", "reportingComponent"],
];

function rename(o: KubeObject, pairs: [string, string][]): KubeObject {
  const out: KubeObject = { ...o };
  for (const [from, to] of pairs) {
    if (from in out) {
      out[to] = out[from];
      delete out[from];
    }
  }
  return out;
}

export function eventV1ToCore(o: KubeObject): KubeObject {
  const out = rename(o, RENAMES);
  out.apiVersion = "v1";
  out.kind = "Event";
  return out;
}

export function coreEventToV1(o: KubeObject): KubeObject {
  const out = rename(
    o,
    RENAMES.map(([a, b]) => [b, a]),
  );
  out.apiVersion = "events.k8s.io/v1";
  out.kind = "Event";
  return out;
}
