/**
 * One fuzz campaign on one backend: hostile PetSets through kubectl in batches, beside a
 * healthy PetSet that keeps rolling under the invariant monitor, with the real controller
 * running. Every case ends as rejected (the error must name its field), accepted and surfaced
 * (a False condition and a Warning Event naming the field), accepted and healthy (it was
 * valid after all), or a finding (accepted and never surfaced, a 5xx, a client error).
 */
import { CoreV1Api, type CoreV1Event, CustomObjectsApi } from "@kubernetes/client-node";
import { ConditionTypes, GROUP, PETSET_PLURAL, VERSION } from "../../src/api/index.js";
import { eventually, type TestCluster } from "../support/cluster.js";
import { startController } from "../support/controller.js";
import { startInvariantMonitor } from "../support/invariant-monitor.js";
import { baseManifest, type HostileCase, hostileCases } from "./hostile-petsets.js";
import { createThroughKubectl } from "./kubectl-batch.js";
import { type CampaignSummary, type CaseResult, emptySummary, tallyCase } from "./summary.js";

export type { CampaignSummary, CaseOutcome, CaseResult } from "./summary.js";

export interface CampaignOptions {
  cluster: TestCluster;
  seed: number;
  runs: number;
  /** Only these case ids (FUZZ_CASES): rerun the findings of a run without the rest. */
  only?: string[];
  batchSize?: number;
  /** How long an accepted case may take to be surfaced or become healthy. */
  surfaceTimeoutMs?: number;
  log?: (line: string) => void;
}

const HEALTHY = "steady";
const ps = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

function mentions(text: string, fields: string[]): boolean {
  const t = text.toLowerCase();
  return fields.length === 0 || fields.some((f) => t.includes(f.toLowerCase()));
}

interface Accepted {
  c: HostileCase;
  name: string;
}

interface Observed {
  metadata?: { name?: string; generation?: number };
  spec?: { replicas?: number };
  status?: {
    observedGeneration?: number;
    readyReplicas?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

/** Surfaced, healthy, or undefined while neither. */
function classify(a: Accepted, p: Observed | undefined, events: CoreV1Event[]): CaseResult | undefined {
  if (!p) return undefined;
  const base = { id: a.c.id, category: a.c.category, key: "accepted" };
  const failed = (p.status?.conditions ?? []).find(
    (c) => c.status === "False" && (c.reason === "InvalidSpec" || c.type === ConditionTypes.progressing),
  );
  const warning = events.find((e) => e.involvedObject.name === a.name && e.type === "Warning");
  if (failed && failed.reason !== "RolloutComplete" && warning) {
    const message = `${failed.reason}: ${failed.message ?? ""} | event ${warning.reason}: ${warning.message ?? ""}`;
    return {
      ...base,
      outcome: "surfaced",
      namesField: mentions(failed.message ?? "", a.c.fields) && mentions(warning.message ?? "", a.c.fields),
      message: message.slice(0, 600),
    };
  }
  const ready = p.status?.readyReplicas ?? 0;
  if (
    p.status?.observedGeneration === p.metadata?.generation &&
    ready === (p.spec?.replicas ?? 1) &&
    (p.status?.conditions ?? []).some((c) => c.type === ConditionTypes.available && c.status === "True")
  )
    return { ...base, outcome: "healthy", namesField: true, message: "" };
  return undefined;
}

export async function runCampaign(o: CampaignOptions): Promise<CampaignSummary> {
  const started = Date.now();
  const log = o.log ?? (() => {});
  const { cluster } = o;
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
  const namespace = await cluster.namespace("fuzz");
  let crashes = 0;
  const onCrash = (err: unknown) => {
    crashes++;
    log(`crash: ${String(err)}`);
  };
  process.on("uncaughtException", onCrash);
  process.on("unhandledRejection", onCrash);
  // A longer Lease than the tests' 4 s: kubectl and big bodies load this 2-core machine, and a
  // replica that lost its Lease never competes again (it is restarted, and counted).
  const lease = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };
  let controller = await startController(cluster, namespace, lease);
  const summary = emptySummary(cluster.backend, o.seed);
  const record = (r: CaseResult) => {
    if (o.only) log(`${r.id} ${r.category}: ${r.outcome} ${r.key} ${r.message.slice(0, 300)}`);
    tallyCase(summary, r);
  };
  const steady = baseManifest(HEALTHY);
  (steady.spec as { replicas: number }).replicas = 2;
  await custom.createNamespacedCustomObject({ ...ps, namespace, body: steady });
  const monitor = await startInvariantMonitor({ kubeConfig: cluster.kubeConfig, namespace, petSet: HEALTHY });
  try {
    const all = hostileCases(o.seed, o.runs);
    const cases = o.only ? all.filter((c) => o.only?.includes(c.id)) : all;
    summary.generated = cases.length;
    const batchSize = o.batchSize ?? 50;
    for (let i = 0; i < cases.length; i += batchSize) {
      const batch = cases.slice(i, i + batchSize);
      // The healthy PetSet rolls to a new image while the batch lands.
      await custom.patchNamespacedCustomObject({
        ...ps,
        namespace,
        name: HEALTHY,
        body: [
          {
            op: "replace",
            path: "/spec/template/spec/containers/0/image",
            value: `nginx:1.${30 + i / batchSize}`,
          },
        ],
      });
      summary.healthyRollouts++;
      const outcomes = await createThroughKubectl(cluster, namespace, batch);
      const accepted: Accepted[] = [];
      for (const c of batch) {
        const out = outcomes.get(c.id);
        if (!out) continue;
        if (out.kind === "created") accepted.push({ c, name: out.name });
        else if (out.kind === "rejected")
          record({
            id: c.id,
            category: c.category,
            outcome: "rejected",
            key: `${out.code} ${out.reason}`,
            namesField: mentions(out.message, c.fields),
            message: out.message.slice(0, 600),
          });
        else
          record({
            id: c.id,
            category: c.category,
            outcome: "client-error",
            key: "client-error",
            namesField: true,
            message: out.message.slice(0, 600),
          });
      }
      await surface(accepted);
      if (controller.lostLeadership()) {
        summary.leaseLosses++;
        await controller.stop();
        controller = await startController(cluster, namespace, lease);
      }
      log(`batch ${i / batchSize + 1}: ${batch.length} cases, ${accepted.length} accepted`);
      for (const a of accepted)
        await custom
          .deleteNamespacedCustomObject({ ...ps, namespace, name: a.name, propagationPolicy: "Background" })
          .catch(() => {});
    }
    await eventually(
      `${HEALTHY} rolled out after the fuzz`,
      async () => {
        const p = (await custom.getNamespacedCustomObject({ ...ps, namespace, name: HEALTHY })) as Observed;
        const avail = p.status?.conditions?.find((c) => c.type === "Progressing");
        return p.status?.observedGeneration === p.metadata?.generation &&
          p.status?.readyReplicas === 2 &&
          avail?.reason === "RolloutComplete"
          ? true
          : undefined;
      },
      o.surfaceTimeoutMs ?? 120_000,
      500,
    );
  } finally {
    const violations = await monitor.stop();
    summary.invariantViolations = violations.map((v) => `${v.rule}: ${v.message}`);
    if (controller.lostLeadership()) summary.leaseLosses++;
    await controller.stop();
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
    summary.crashes = crashes;
    summary.durationMs = Date.now() - started;
  }
  return summary;

  async function surface(accepted: Accepted[]): Promise<void> {
    const pending = new Map(accepted.map((a) => [a.name, a]));
    const deadline = Date.now() + (o.surfaceTimeoutMs ?? 60_000);
    while (pending.size > 0) {
      const list = (await custom.listNamespacedCustomObject({ ...ps, namespace })) as { items: Observed[] };
      const events = (await core.listNamespacedEvent({ namespace })).items;
      const byName = new Map(list.items.map((p) => [p.metadata?.name ?? "", p]));
      for (const [name, a] of pending) {
        const r = classify(a, byName.get(name), events);
        if (r) {
          record(r);
          pending.delete(name);
        }
      }
      if (pending.size === 0) break;
      if (Date.now() > deadline) {
        for (const a of pending.values()) {
          const p = byName.get(a.name);
          record({
            id: a.c.id,
            category: a.c.category,
            outcome: "unsurfaced",
            key: "accepted",
            namesField: false,
            message: JSON.stringify(p?.status ?? {}).slice(0, 600),
          });
        }
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
