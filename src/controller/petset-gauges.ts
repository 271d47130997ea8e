/**
 * The per-PetSet gauges as of each PetSet's last sync: `petset_versions`, `petset_pods{version}`,
 * `petset_pets_on_lost_nodes` and `petset_condition{type,status,reason}`.
 *
 * Rules (unchanged from the series prom-client kept for them before, docs/operations.md):
 *  - a sync sets how many versions the PetSet has, how many pods run each version (a version
 *    without pods has no series), how many pets are on lost nodes (0 too), and one series of
 *    value 1 per condition its status carries (reason "" when it has none);
 *  - a PetSet that is gone loses every series; a restarted controller starts with none, and
 *    the first sync of each PetSet fills them.
 *
 * Memory (issue 29): one small record per PetSet, turned into series only when /metrics is
 * scraped. prom-client's own series cost about 1 KB per PetSet (a hash string and a labels
 * object per series, five series each), 10 MB at 10,000 PetSets, and each condition change
 * left old-generation garbage. The records hold the pod counts and conditions as shared
 * frozen copies (most PetSets have the same ones), their names as the caches' strings.
 */
import { Gauge, type GaugeConfiguration, type Registry } from "prom-client";
import { SharedCopies } from "../util/shared-copies.js";

type Values<T extends string> = Awaited<ReturnType<Gauge<T>["get"]>>["values"];

/** A gauge whose series are read from elsewhere when scraped. */
class ReadGauge<T extends string> extends Gauge<T> {
  constructor(
    config: GaugeConfiguration<T>,
    private readonly read: () => Values<T>,
  ) {
    super(config);
  }

  override async get(): ReturnType<Gauge<T>["get"]> {
    return { ...(await super.get()), values: this.read() };
  }
}

type ConditionTuple = readonly [type: string, status: string, reason: string];

interface PetSetRecord {
  versions: number | undefined;
  /** [version label, pods], by version label. */
  pods: readonly (readonly [string, number])[];
  lostPets: number | undefined;
  conditions: readonly ConditionTuple[];
}

const NONE: readonly never[] = Object.freeze([]);

interface ConditionLike {
  type: string;
  status: string;
  reason?: string | undefined;
}

export class PetSetGauges {
  /** namespace → PetSet name → its record. */
  private readonly records = new Map<string, Map<string, PetSetRecord>>();
  private readonly shared = new SharedCopies(1_024);

  constructor(registry: Registry) {
    const registers = [registry];
    const gauge = <T extends string>(config: GaugeConfiguration<T>, read: () => Values<T>) => {
      new ReadGauge<T>({ ...config, registers }, read);
    };
    gauge(
      { name: "petset_versions", help: "PetSetVersions per PetSet", labelNames: ["namespace", "petset"] },
      () =>
        this.each((namespace, petset, r) =>
          r.versions === undefined ? [] : [{ value: r.versions, labels: { namespace, petset } }],
        ),
    );
    gauge(
      {
        name: "petset_pods",
        help: "Pods per PetSet and version",
        labelNames: ["namespace", "petset", "version"],
      },
      () =>
        this.each((namespace, petset, r) =>
          r.pods.map(([version, value]) => ({ value, labels: { namespace, petset, version } })),
        ),
    );
    gauge(
      {
        name: "petset_condition",
        help: "1 for each condition in a PetSet's status (type, status, reason), on the leader",
        labelNames: ["namespace", "petset", "type", "status", "reason"],
      },
      () =>
        this.each((namespace, petset, r) =>
          r.conditions.map(([type, status, reason]) => ({
            value: 1,
            labels: { namespace, petset, type, status, reason },
          })),
        ),
    );
    gauge(
      {
        name: "petset_pets_on_lost_nodes",
        help: "Pets whose node is lost (Ready Unknown or False, or gone), per PetSet (docs/failover.md)",
        labelNames: ["namespace", "petset"],
      },
      () =>
        this.each((namespace, petset, r) =>
          r.lostPets === undefined ? [] : [{ value: r.lostPets, labels: { namespace, petset } }],
        ),
    );
  }

  /** How many versions the PetSet has and which version each of its pods runs (one label per pod). */
  setPods(namespace: string, petSet: string, versionCount: number, podVersions: readonly string[]): void {
    const counts = new Map<string, number>();
    for (const v of podVersions) counts.set(v, (counts.get(v) ?? 0) + 1);
    const pods = [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const r = this.record(namespace, petSet);
    r.versions = versionCount;
    r.pods = pods.length === 0 ? NONE : this.shared.share(pods);
  }

  setLostPets(namespace: string, petSet: string, n: number): void {
    this.record(namespace, petSet).lostPets = n;
  }

  /** The conditions the PetSet's status carries now (earlier ones' series go). */
  reportConditions(namespace: string, petSet: string, conditions: readonly ConditionLike[]): void {
    const tuples = conditions.map((c): ConditionTuple => [c.type, c.status, c.reason ?? ""]);
    this.record(namespace, petSet).conditions = tuples.length === 0 ? NONE : this.shared.share(tuples);
  }

  /** The PetSet is gone: none of its series may linger. */
  forget(namespace: string, petSet: string): void {
    const names = this.records.get(namespace);
    names?.delete(petSet);
    if (names?.size === 0) this.records.delete(namespace);
  }

  private record(namespace: string, petSet: string): PetSetRecord {
    let names = this.records.get(namespace);
    if (names === undefined) {
      names = new Map();
      this.records.set(namespace, names);
    }
    let r = names.get(petSet);
    if (r === undefined) {
      r = { versions: undefined, pods: NONE, lostPets: undefined, conditions: NONE };
      names.set(petSet, r);
    }
    return r;
  }

  private each<V>(series: (namespace: string, petSet: string, r: PetSetRecord) => readonly V[]): V[] {
    const out: V[] = [];
    for (const [namespace, names] of this.records)
      for (const [petSet, r] of names) for (const v of series(namespace, petSet, r)) out.push(v);
    return out;
  }
}
