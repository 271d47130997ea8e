/**
 * Rollout (issue 6): N pets from one image to another. Wall time, API writes per pet
 * update (the controller's petset_api_writes_total), controller CPU and RSS. Optionally
 * (`--statefulset`, either backend) side by side with the built-in StatefulSet controller
 * on a private control plane (rollout-compare.ts).
 */
import { join } from "node:path";
import { compareWithStatefulSet } from "./rollout-compare.js";
import type { Backend } from "./support/backends.js";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { imagePatch, MERGE_PATCH, petSetManifest, petSetsPath } from "./support/petsets.js";
import { ProcSampler } from "./support/proc.js";
import { startController, writesBetween } from "./support/processes.js";
import { secondsUntilSettled } from "./support/settled.js";
import { m } from "./support/stats.js";

const SIZES = { small: { pets: 20 }, full: { pets: 100 } } as const;
const FROM = "nginx:1.26";
const TO = "nginx:1.27";
const NAME = "web";

/** Every pod of the set runs `image` and is Ready (checked after the status said so). */
async function verifyPods(backend: Backend, ns: string, pets: number, image: string): Promise<boolean> {
  type Pod = {
    spec: { containers: Array<{ image: string }> };
    status?: { conditions?: Array<{ type: string; status: string }> };
  };
  const pods = await backend.http.json<{ items: Pod[] }>(
    "GET",
    `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${NAME}`,
  );
  const good = pods.items.filter(
    (p) =>
      p.spec.containers[0]?.image === image &&
      p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"),
  );
  return pods.items.length === pets && good.length === pets;
}

async function petSetRollout(ctx: BenchContext, backend: Backend, pets: number) {
  const { http } = backend;
  const ns = await backend.namespace("bench-rollout");
  const controller = await startController(
    backend.controllerKubeconfigPath,
    ns,
    join(backend.workDir, "controller-rollout.log"),
    ctx.controllerNodeArgs,
  );
  const path = `${petSetsPath(ns)}/${NAME}`;
  try {
    ctx.log(`petset: create ${pets} pets`);
    const createSampler = new ProcSampler(controller.pid).start();
    await http.json("POST", petSetsPath(ns), petSetManifest(NAME, { replicas: pets, image: FROM }));
    const createSeconds = await secondsUntilSettled(backend, path, pets, { perPetMs: 10_000, pollMs: 200 });
    const createProc = createSampler.stop();
    ctx.log(`petset: roll ${FROM} -> ${TO}`);
    const writes0 = await controller.apiWrites();
    const sampler = new ProcSampler(controller.pid).start();
    await http.json("PATCH", path, imagePatch(NAME, TO), MERGE_PATCH);
    const rolloutSeconds = await secondsUntilSettled(backend, path, pets, { perPetMs: 10_000, pollMs: 200 });
    const proc = sampler.stop();
    const writes = writesBetween(writes0, await controller.apiWrites());
    const verified = await verifyPods(backend, ns, pets, TO);
    ctx.log(
      `petset: rollout ${rolloutSeconds.toFixed(1)} s, ${writes.total} writes, pods verified: ${verified}`,
    );
    return {
      createWallTime: m(createSeconds, "s"),
      createController: createProc,
      rolloutWallTime: m(rolloutSeconds, "s"),
      rolloutPerPet: m((rolloutSeconds / pets) * 1000, "ms/pet"),
      apiWrites: m(writes.total, "writes"),
      apiWritesPerPetUpdate: m(writes.total / pets, "writes/pet"),
      apiWritesByKind: writes.byKind,
      controller: proc,
      podsVerified: verified,
    };
  } finally {
    await controller.stop();
    await backend.deleteNamespace(ns);
  }
}

export const rolloutBenchmark: Benchmark = {
  name: "rollout",
  description: "rollout of N pets from one image to another; optionally vs StatefulSet (--statefulset)",
  backends: ["embedded", "real"],
  backendOptions: { readyDelayMs: 200 },
  async run(ctx): Promise<BenchOutput> {
    const pets = ctx.sizes.pets ?? SIZES[ctx.scale].pets;
    // --compare-only (bench-quick): the comparison alone, no rollout on the backend.
    const petset =
      ctx.compareOnly && ctx.statefulSet ? undefined : await petSetRollout(ctx, ctx.backend, pets);
    const results: Record<string, unknown> = petset ? { petset } : {};
    const notes = petset
      ? [
          "petset: OrderedReady, RollingUpdate one pet at a time (maxUnavailable 1, the default) with the simulated kubelet of the backend.",
          "Wall time: from the write until status shows every pet updated and Ready (observedGeneration caught up; status polled every 200 ms). Pods are then checked directly.",
          "API writes: petset_api_writes_total delta over the rollout (pods, versions, status, events, annotations).",
        ]
      : ["--compare-only: no rollout on the backend itself, only the comparison."];
    const server: Record<string, unknown> = {};
    // The comparison starts its own control plane, so it runs beside either backend.
    if (ctx.statefulSet) {
      const runs = ctx.sizes.runs ?? 3;
      results.comparison = await compareWithStatefulSet(
        ctx,
        ctx.sizes.comparePets ?? pets,
        runs,
        ctx.sizes.compareWarmups ?? 1,
      );
      notes.push(
        "comparison: a private control plane started for it (test/cluster/up.sh with its own state dir and PETSET_CLUSTER_PROFILE=statefulset-bench: kube-controller-manager runs only statefulset, namespace, serviceaccount and nodelifecycle, with the MaxUnavailableStatefulSet gate on kube-apiserver and kube-controller-manager), so kube-controller-manager's CPU is the StatefulSet controller's (plus nodelifecycle's few-second node checks).",
        "comparison: both kinds with podManagementPolicy Parallel and RollingUpdate maxUnavailable 1 and 10, the same pod template; for each maxUnavailable `runsPerController` rounds, each round runs both in turn (petset first in even rounds, StatefulSet first in odd ones), each in a fresh namespace that is deleted and gone before the next. Median, min, max and every run are reported.",
        "comparison: wall time from the image patch until status shows every pet updated and Ready (polled every 50 ms). API writes: kube-apiserver's audit log, writes into the namespace by the controller's user (petset-controller; system:serviceaccount:kube-system:statefulset-controller), from the patch until 2 s after settled. CPU: /proc of the petset controller process and of kube-controller-manager over the rollout.",
        "comparison: kubeletPerPet is the simulated kubelet's own time from the audit log (controller's pod delete to kwok's final delete, plus controller's pod create to kwok's first status write, which includes scheduling); overheadPerPet = (wall time - kubelet time / min(maxUnavailable, pets)) / pets.",
      );
      server.statefulSetComparison = "private control plane, profile statefulset-bench";
    } else {
      notes.push("StatefulSet comparison not run (pass --statefulset).");
    }
    // Printed by `make bench-quick` (bench/headline.ts): per pet, and petset / StatefulSet.
    const headline: Record<string, unknown> = petset
      ? {
          rolloutPerPet: petset.rolloutPerPet,
          apiWritesPerPet: petset.apiWritesPerPetUpdate,
          controllerCpuPerPet: m(((petset.controller.cpuTime?.value ?? 0) / pets) * 1000, "ms/pet"),
        }
      : {};
    const scenarios = (
      results.comparison as { scenarios?: Record<string, { ratio: Record<string, unknown> }> }
    )?.scenarios;
    for (const [name, sc] of Object.entries(scenarios ?? {}))
      for (const [k, v] of Object.entries(sc.ratio)) headline[`${name} ${k} petset/StatefulSet`] = v;
    results.headline = headline;
    return {
      parameters: { pets, from: FROM, to: TO, podManagementPolicy: "OrderedReady" },
      results,
      notes,
      server,
    };
  },
};
