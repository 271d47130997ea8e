/**
 * The caches' lists in pages, as client-go's reflector lists (pager, 500 per page). One
 * response of 30,000 pods is held three times while client-node reads it (the body text, the
 * parsed JSON, the typed objects): the cold start of 10,000 PetSets x 3 pods peaked at 1.6 GiB
 * of RSS for a cache that keeps about 400 MiB (docs/benchmarks.md, section 4). In pages, only
 * one page is in flight at a time.
 *
 * Every page is served from the first page's snapshot (kube: the etcd revision in the
 * continue token; the embedded server: ObjectStore.scanAt), so the joined list is one
 * consistent list at the first page's resourceVersion, which is where the watch resumes. A
 * token too old (410 Expired) fails the list; the cache restarts it from the beginning.
 */
import type { KubernetesListObject, KubernetesObject } from "@kubernetes/client-node";

export const LIST_PAGE_SIZE = 500;

/** Asks for one page: `limit` items, after `continueToken` when set. */
export type PageFetcher<T extends KubernetesObject> = (
  limit: number,
  continueToken: string | undefined,
) => Promise<KubernetesListObject<T>>;

/** The paging part of a list request: `limit`, and the continue token after the first page. */
export function pageQuery(limit: number, token: string | undefined): { limit: number; _continue?: string } {
  return token === undefined ? { limit } : { limit, _continue: token };
}

/** The continue token of a page: `_continue` on client-node's typed lists, `continue` on raw JSON. */
function continueOf(list: KubernetesListObject<KubernetesObject>): string | undefined {
  const meta = (list.metadata ?? {}) as { _continue?: string; continue?: string };
  const token = meta._continue ?? meta.continue;
  return token === undefined || token === "" ? undefined : token;
}

/**
 * Every page of a list joined into one, with the first page's metadata (resourceVersion).
 * `each` sees every item as its page arrives: the cache's trim (cache-trim.ts) runs there, so
 * a list holds trimmed objects, not 30,000 full pods until the last page (a 10,000 x 3 cold
 * start under a 384-MiB heap ran out of memory exactly so).
 */
export async function listInPages<T extends KubernetesObject>(
  fetchPage: PageFetcher<T>,
  pageSize = LIST_PAGE_SIZE,
  each: (item: T) => void = () => {},
): Promise<KubernetesListObject<T>> {
  const first = await fetchPage(pageSize, undefined);
  const items: T[] = [];
  for (const item of first.items) {
    each(item);
    items.push(item);
  }
  for (let token = continueOf(first); token !== undefined; ) {
    const page = await fetchPage(pageSize, token);
    for (const item of page.items) {
      each(item);
      items.push(item);
    }
    token = continueOf(page);
  }
  const { _continue: _a, continue: _b, ...meta } = (first.metadata ?? {}) as Record<string, unknown>;
  return { ...first, metadata: meta, items };
}
