/**
 * A cache for the fake world (fake-world.ts) that keeps two views: `live` (what the API server
 * has) and the cache view (`get`/`list`: what an informer shows; behind while `hold()`, and
 * without the objects its selector cannot see).
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import type { ResourceCache } from "../../../src/controller/informers.js";

export class FakeCache<T extends KubernetesObject> implements ResourceCache<T> {
  /** The cache view: what the informer shows. */
  readonly objects = new Map<string, T>();
  /** What the API server has. */
  private readonly truth = new Map<string, T>();
  readonly synced = Promise.resolve();
  /** Not counted: nothing in the fake world reads it. */
  readonly eventCounts = { add: 0, update: 0, delete: 0 };
  /** While held, writes wait in `lag` (a watch that is behind); release() delivers them. */
  private held: boolean | string = false;
  private readonly lag: (() => void)[] = [];
  /** `visible`: what the informer's selector shows (default: everything). */
  constructor(
    readonly name: string,
    private readonly visible: (obj: T) => boolean = () => true,
  ) {}
  private key(name: string, ns?: string) {
    return `${ns ?? ""}/${name}`;
  }
  /** The object as the API server has it now (whatever the cache shows). */
  live(name: string, ns?: string): T | undefined {
    return this.truth.get(this.key(name, ns));
  }
  /** The cache falls behind: writes (only those of object `name`, if given) wait for release(). */
  hold(name?: string): void {
    this.held = name ?? true;
  }
  private lags(name: string): boolean {
    return this.held === true || this.held === name;
  }
  release(): void {
    this.held = false;
    for (const apply of this.lag.splice(0)) apply();
  }
  /** A write on the API server; the cache shows it now, or on release() while held. */
  put(obj: T): void {
    const key = this.key(obj.metadata?.name ?? "", obj.metadata?.namespace);
    this.truth.set(key, obj);
    const apply = () => {
      if (this.visible(obj)) this.objects.set(key, obj);
      else this.objects.delete(key);
    };
    if (this.lags(obj.metadata?.name ?? "")) this.lag.push(apply);
    else apply();
  }
  remove(name: string, ns: string): void {
    this.truth.delete(this.key(name, ns));
    const apply = () => this.objects.delete(this.key(name, ns));
    if (this.lags(name)) this.lag.push(apply);
    else apply();
  }
  /** Every object the API server has now. */
  liveList(): readonly T[] {
    return [...this.truth.values()];
  }
  get(name: string, ns?: string): T | undefined {
    return this.objects.get(this.key(name, ns));
  }
  list(ns?: string): readonly T[] {
    return [...this.objects.values()].filter((o) => ns === undefined || o.metadata?.namespace === ns);
  }
  ofPetSet(ns: string, petSet: string): readonly T[] {
    return this.list(ns).filter((o) => o.metadata?.labels?.["petset.dev/petset"] === petSet);
  }
  controlledBy(ns: string, uid: string): readonly T[] {
    return this.list(ns).filter((o) =>
      (o.metadata?.ownerReferences ?? []).some((r) => r.controller && r.uid === uid),
    );
  }
  namedUnder(ns: string, prefix: string): readonly T[] {
    return this.list(ns).filter((o) => (o.metadata?.name ?? "").startsWith(`${prefix}-`));
  }
  onChange(): void {}
  async stop(): Promise<void> {}
}
