/**
 * Concurrent write bursts against one server: each worker owns a few objects (so their
 * acknowledged states are well defined) and creates, updates and deletes them in a seeded
 * random order until the server stops answering. Every answer is recorded in the WriteModel.
 */
import type { KubeconfigFetch } from "../e2e/shim/harness.js";
import type { Content, Kind, ObjectRecord, WriteModel } from "./write-model.js";

export const NAMESPACE = "default";

export type Random = () => number;

/** mulberry32: small, seedable, good enough to pick operations. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function collectionPath(kind: Kind): string {
  return kind === "configmap"
    ? `/api/v1/namespaces/${NAMESPACE}/configmaps`
    : `/apis/petset.dev/v1alpha1/namespaces/${NAMESPACE}/petsets`;
}

function manifest(kind: Kind, name: string, content: string): unknown {
  if (kind === "configmap")
    return { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { v: content } };
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: content }] },
      },
    },
  };
}

function patch(kind: Kind, content: string): unknown {
  return kind === "configmap"
    ? { data: { v: content } }
    : { spec: { template: { spec: { containers: [{ name: "app", image: content }] } } } };
}

/** The content an object shows, as the model records it. */
export function contentOf(kind: Kind, obj: unknown): Content {
  const o = obj as {
    data?: { v?: string };
    spec?: { template?: { spec?: { containers?: { image?: string }[] } } };
  };
  return kind === "configmap" ? o.data?.v : o.spec?.template?.spec?.containers?.[0]?.image;
}

export interface BurstOptions {
  url: string;
  fetch: KubeconfigFetch;
  model: WriteModel;
  random: Random;
  workers: number;
  objectsPerWorker: number;
  /** Tag put into contents so every write's content is unique. */
  cycle: number;
  /** Stops issuing writes when set. */
  stopped: () => boolean;
  /** Answers that were neither success nor a dead server (each is a finding). */
  onUnexpected: (message: string) => void;
}

/** Runs until every worker met a dead server (or `stopped`). Resolves with the writes issued. */
export async function writeBurst(o: BurstOptions): Promise<number> {
  let issued = 0;
  const worker = async (w: number) => {
    const mine: ObjectRecord[] = [];
    for (let j = 0; j < o.objectsPerWorker; j++) {
      const kind: Kind = j % 3 === 2 ? "petset" : "configmap";
      mine.push(o.model.record(kind, `dur-w${w}-${kind === "petset" ? "ps" : "cm"}${j}`));
    }
    let n = 0;
    while (!o.stopped()) {
      const r = mine[Math.floor(o.random() * mine.length)]!;
      const content =
        r.kind === "configmap" ? `c${o.cycle}-w${w}-${n++}` : `registry.local/app:c${o.cycle}-w${w}-${n++}`;
      const exists = r.acked !== undefined;
      const del = exists && o.random() < 0.2;
      const base = `${o.url}${collectionPath(r.kind)}`;
      o.model.begin(r, del ? undefined : content);
      issued++;
      let res: Awaited<ReturnType<KubeconfigFetch>>;
      try {
        if (!exists)
          res = await o.fetch(base, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(manifest(r.kind, r.name, content)),
          });
        else if (del) res = await o.fetch(`${base}/${r.name}`, { method: "DELETE" });
        else
          res = await o.fetch(`${base}/${r.name}`, {
            method: "PATCH",
            headers: { "Content-Type": "application/merge-patch+json" },
            body: JSON.stringify(patch(r.kind, content)),
          });
      } catch {
        return; // the server is gone: this write stays in flight
      }
      let body: { metadata?: { resourceVersion?: string }; kind?: string } = {};
      try {
        body = (await res.json()) as typeof body;
      } catch {
        return; // killed mid-answer: not acknowledged
      }
      if (res.status >= 200 && res.status < 300) {
        const rv = Number(body.metadata?.resourceVersion ?? 0);
        o.model.ack(r, del ? undefined : content, rv);
      } else {
        o.onUnexpected(
          `${res.status} for ${del ? "delete" : exists ? "patch" : "create"} of ${r.kind}/${r.name}: ${JSON.stringify(body).slice(0, 300)}`,
        );
        // Not applied: back to the acknowledged state.
        r.pending = undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: o.workers }, (_, w) => worker(w)));
  return issued;
}
