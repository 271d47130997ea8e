/** Feeds (what each object's watch delivers, in order) and a replica's view of them. See stale-model.ts. */
import type { PetSetVersion } from "../../../../src/api/index.js";
import type { NodeView } from "../../../../src/controller/planner/node-failure.js";
import type { ClaimView, PodView } from "../../../../src/controller/planner/views.js";
import type { World } from "../planner/simulate.js";
import { checkTruth } from "./invariants.js";
import { checkNodeTruth } from "./nodes.js";
import type { FeedState, Model, Replica, View } from "./stale-model.js";

// ------------------------------------------------------------------ feeds and views

/** Appends every object's new state to its feed, then checks the invariants on the truth. */
export function record(m: Model): void {
  const { world } = m;
  const push = (key: string, state: FeedState) => {
    const feed = m.feeds.get(key) ?? [];
    if (feed.length === 0 || feed[feed.length - 1] !== state) feed.push(state);
    m.feeds.set(key, feed);
  };
  for (const key of m.feeds.keys()) {
    if (key.startsWith("pod/") && !world.pods.has(key.slice(4))) push(key, undefined);
    if (key.startsWith("claim/") && !world.claims.has(key.slice(6))) push(key, undefined);
  }
  for (const [name, pod] of world.pods) push(`pod/${name}`, pod.view);
  for (const [name, claim] of world.claims) push(`claim/${name}`, claim);
  for (const node of m.nodes?.truth.values() ?? []) push(`node/${node.name}`, node);
  push("petset", world.petSet);
  // Versions are never deleted in the model (no GC): one feed per version object.
  for (const v of world.versions) push(`version/${v.metadata.name}`, v);
  checkTruth(m);
  if (m.nodes !== undefined) checkNodeTruth(m);
}

export function feedKeys(m: Model): string[] {
  return [...m.feeds.keys()].sort();
}

/** Objects with events the replica's watch has not delivered yet. */
export function laggingKeys(m: Model, r: Replica): string[] {
  return feedKeys(m).filter((k) => (r.read.get(k) ?? -1) < (m.feeds.get(k)?.length ?? 0) - 1);
}

/** The replica's watch of `key` delivers one more event, if there is one. */
export function deliver(m: Model, r: Replica, key: string): void {
  const feed = m.feeds.get(key);
  if (feed === undefined) return;
  const at = r.read.get(key) ?? -1;
  if (at < feed.length - 1) r.read.set(key, at + 1);
  if (key.startsWith("node/")) r.nodesSynced = true;
}

/** Every feed read to its end; `nodes` false: the node cache stays as it was (not synced yet). */
export function deliverAll(m: Model, r: Replica, nodes = true): void {
  for (const [key, feed] of m.feeds) if (nodes || !key.startsWith("node/")) r.read.set(key, feed.length - 1);
  if (nodes) r.nodesSynced = true;
}

export function seen<T extends FeedState>(m: Model, r: Replica, key: string): T | undefined {
  const at = r.read.get(key) ?? -1;
  return at < 0 ? undefined : (m.feeds.get(key)?.[at] as T);
}

export function viewOf(m: Model, r: Replica): View {
  const pods: PodView[] = [];
  const claims: ClaimView[] = [];
  const versions: World["versions"] = [];
  const nodes: NodeView[] = [];
  for (const key of m.feeds.keys()) {
    if (key.startsWith("version/")) {
      const v = seen<PetSetVersion>(m, r, key);
      if (v !== undefined) versions.push(v);
    } else if (key.startsWith("pod/")) {
      const p = seen<PodView>(m, r, key);
      if (p !== undefined) pods.push(p);
    } else if (key.startsWith("claim/")) {
      const c = seen<ClaimView>(m, r, key);
      if (c !== undefined) claims.push(c);
    } else if (key.startsWith("node/")) {
      const n = seen<NodeView>(m, r, key);
      if (n !== undefined) nodes.push(n);
    }
  }
  return {
    petSet: seen<World["petSet"]>(m, r, "petset") ?? m.world.petSet,
    versions: versions.sort((a, b) => a.spec.version - b.spec.version),
    pods,
    claims,
    ...(m.nodes !== undefined && r.nodesSynced !== false ? { nodes } : {}),
  };
}

export function lookupFor(m: Model, r: Replica) {
  return (resource: string, name: string) => {
    if (resource === "petsets") {
      return { uid: "set-uid", resourceVersion: String(r.read.get("petset") ?? -1), terminating: false };
    }
    if (resource === "petsetversions") {
      const v = seen<PetSetVersion>(m, r, `version/${name}`);
      if (v === undefined) return undefined;
      return {
        uid: v.metadata.uid ?? "",
        resourceVersion: v.metadata.resourceVersion ?? "",
        terminating: false,
      };
    }
    const key = resource === "pods" ? `pod/${name}` : `claim/${name}`;
    const obj = seen<PodView | ClaimView>(m, r, key);
    if (obj === undefined) return undefined;
    return {
      uid: obj.uid,
      resourceVersion: obj.resourceVersion,
      terminating: obj.deletionTimestamp !== undefined,
    };
  };
}
