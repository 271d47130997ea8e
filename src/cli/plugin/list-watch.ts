import { type KubeConfig, Watch } from "@kubernetes/client-node";

/** One collection to follow: its path and selectors, and how to list it. */
export interface ListWatchSource {
  /** e.g. `/apis/petset.dev/v1alpha1/namespaces/default/petsets`. */
  readonly path: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** A consistent list: the objects and the resourceVersion to watch from. */
  list(): Promise<{ items: unknown[]; resourceVersion: string }>;
}

/** Pause before re-listing after a watch ended or failed, so a flapping server is not hammered. */
const RELIST_BACKOFF_MS = 500;

/**
 * A minimal reflector: lists, then watches from the list's resourceVersion, keeping the
 * objects by name; after the list and after every event calls `until` with all objects.
 * When the watch ends or fails (server timeout, 410 Gone), it lists again. Resolves to
 * `until`'s first value, or undefined after `timeoutMs`; rejects when a list fails or
 * `until` throws.
 */
export function watchUntil<R>(
  kubeConfig: KubeConfig,
  source: ListWatchSource,
  until: (items: unknown[]) => R | undefined,
  timeoutMs?: number,
): Promise<R | undefined> {
  return new Promise<R | undefined>((resolve, reject) => {
    let finished = false;
    let abort: AbortController | undefined;
    let timer: NodeJS.Timeout | undefined;
    const finish = (settle: () => void) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      abort?.abort();
      settle();
    };
    if (timeoutMs !== undefined) timer = setTimeout(() => finish(() => resolve(undefined)), timeoutMs);
    const items = new Map<string, unknown>();
    const evaluate = () => {
      try {
        const result = until([...items.values()]);
        if (result !== undefined) finish(() => resolve(result));
      } catch (err) {
        finish(() => reject(err));
      }
    };
    const watch = new Watch(kubeConfig);
    const watchOnce = (resourceVersion: string) =>
      new Promise<void>((ended) => {
        const query = {
          resourceVersion,
          allowWatchBookmarks: true,
          ...(source.labelSelector ? { labelSelector: source.labelSelector } : {}),
          ...(source.fieldSelector ? { fieldSelector: source.fieldSelector } : {}),
        };
        const onEvent = (phase: string, object: unknown) => {
          if (finished) return;
          if (phase === "ERROR") return ended(); // e.g. 410 Gone: list again
          if (phase === "BOOKMARK") return;
          const key = nameOf(object);
          if (phase === "DELETED") items.delete(key);
          else items.set(key, object);
          evaluate();
        };
        watch
          .watch(source.path, query, onEvent, () => ended())
          .then((controller) => {
            abort = controller;
            if (finished) controller.abort();
          })
          .catch(() => ended());
      });
    const run = async () => {
      while (!finished) {
        const listed = await source.list();
        if (finished) return;
        items.clear();
        for (const item of listed.items) items.set(nameOf(item), item);
        evaluate();
        if (finished) return;
        await watchOnce(listed.resourceVersion);
        if (!finished) await new Promise((r) => setTimeout(r, RELIST_BACKOFF_MS));
      }
    };
    run().catch((err: unknown) => finish(() => reject(err)));
  });
}

function nameOf(object: unknown): string {
  const metadata = (object as { metadata?: { name?: unknown } } | null)?.metadata;
  return typeof metadata?.name === "string" ? metadata.name : "";
}
