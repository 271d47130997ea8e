/**
 * Rollout (issue 6): N pets from one image to another. Wall time, API writes per pet
 * update (the controller's petset_api_writes_total), controller CPU and RSS. On the real
 * backend, optionally the built-in StatefulSet controller with the same template and
 * readiness, as a ratio petset/statefulset.
 */
import { join } from "node:path";
import { type Backend, readPid, startPrivateStatefulSetCluster } from "./support/backends.js";
import type { BenchContext, Benchmark, BenchOutput } from "./support/bench.js";
import { imagePatch, MERGE_PATCH, petSetManifest, petSetsPath, podTemplate } from "./support/petsets.js";
import { ProcSampler } from "./support/proc.js";
import { startController, writesBetween } from "./support/processes.js";
import { type Measurement, m, waitFor } from "./support/stats.js";

const SIZES = { small: { pets: 20 }, full: { pets: 100 } } as const;
const FROM = "nginx:1.26";
const TO = "nginx:1.27";
const NAME = "web";

interface SetStatus {
  metadata: { generation?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentVersion?: number;
    updateVersion?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

/** Done when the controller has seen the latest spec and every pet is updated and Ready. */
function settled(o: SetStatus, pets: number): boolean {
  const s = o.status ?? {};
  const sameVersion =
    s.currentVersion !== undefined
      ? s.currentVersion === s.updateVersion
      : s.currentRevision === s.updateRevision;
  return (
    (s.observedGeneration ?? 0) >= (o.metadata.generation ?? 1) &&
    s.replicas === pets &&
    s.readyReplicas === pets &&
    s.updatedReplicas === pets &&
    sameVersion
  );
}

async function timeUntilSettled(backend: Backend, path: string, pets: number): Promise<number> {
  const t0 = performance.now();
  await waitFor(
    `${path} settled with ${pets} ready, updated pets`,
    async () => (settled(await backend.http.json<SetStatus>("GET", path), pets) ? true : undefined),
    Math.max(120_000, pets * 10_000),
    200,
  );
  return (performance.now() - t0) / 1000;
}

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
    const createSeconds = await timeUntilSettled(backend, path, pets);
    const createProc = createSampler.stop();
    ctx.log(`petset: roll ${FROM} -> ${TO}`);
    const writes0 = await controller.apiWrites();
    const sampler = new ProcSampler(controller.pid).start();
    await http.json("PATCH", path, imagePatch(NAME, TO), MERGE_PATCH);
    const rolloutSeconds = await timeUntilSettled(backend, path, pets);
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

function statefulSetManifest(pets: number, image: string) {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: NAME },
    spec: {
      replicas: pets,
      serviceName: NAME,
      selector: { matchLabels: { app: NAME } },
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate" },
      template: podTemplate(NAME, image),
    },
  };
}

async function statefulSetRollout(ctx: BenchContext, backend: Backend, pets: number) {
  const { http } = backend;
  const ns = await backend.namespace("bench-sts");
  const base = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
  const path = `${base}/${NAME}`;
  try {
    const kcm = readPid("kube-controller-manager", backend.clusterDir);
    ctx.log(`statefulset: create ${pets} pets`);
    const createSampler = new ProcSampler(kcm).start();
    await http.json("POST", base, statefulSetManifest(pets, FROM));
    const createSeconds = await timeUntilSettled(backend, path, pets);
    const createProc = createSampler.stop();
    ctx.log(`statefulset: roll ${FROM} -> ${TO}`);
    const sampler = new ProcSampler(kcm).start();
    await http.json("PATCH", path, imagePatch(NAME, TO), MERGE_PATCH);
    const rolloutSeconds = await timeUntilSettled(backend, path, pets);
    const proc = sampler.stop();
    const verified = await verifyPods(backend, ns, pets, TO);
    ctx.log(`statefulset: rollout ${rolloutSeconds.toFixed(1)} s, pods verified: ${verified}`);
    return {
      createWallTime: m(createSeconds, "s"),
      createKubeControllerManager: createProc,
      rolloutWallTime: m(rolloutSeconds, "s"),
      rolloutPerPet: m((rolloutSeconds / pets) * 1000, "ms/pet"),
      kubeControllerManager: proc,
      podsVerified: verified,
    };
  } finally {
    await backend.deleteNamespace(ns);
  }
}

const ratio = (a: Measurement | undefined, b: Measurement | undefined): Measurement =>
  m(a && b && b.value > 0 ? a.value / b.value : Number.NaN, "petset/statefulset");

export const rolloutBenchmark: Benchmark = {
  name: "rollout",
  description: "rollout of N pets from one image to another; on real optionally vs StatefulSet",
  backends: ["embedded", "real"],
  backendOptions: { readyDelayMs: 200 },
  async run(ctx): Promise<BenchOutput> {
    const pets = ctx.sizes.pets ?? SIZES[ctx.scale].pets;
    const petset = await petSetRollout(ctx, ctx.backend, pets);
    const results: Record<string, unknown> = { petset };
    const notes = [
      "Both the PetSet and the StatefulSet use OrderedReady, RollingUpdate one pet at a time (maxUnavailable 1 is the PetSet default; StatefulSet's maxUnavailable needs the MaxUnavailableStatefulSet feature gate, off here, so it runs its default one-at-a-time), the same pod template and the same simulated kubelet.",
      "Wall time: from the write until status shows every pet updated and Ready (observedGeneration caught up; status polled every 200 ms). Pods are then checked directly.",
      "API writes: petset_api_writes_total delta over the rollout (pods, versions, status, events, annotations).",
    ];
    const server: Record<string, unknown> = {};
    if (ctx.backend.name === "real" && ctx.statefulSet) {
      ctx.log("starting a private control plane with the StatefulSet controller");
      const cluster = await startPrivateStatefulSetCluster();
      try {
        const petsetThere = await petSetRollout(ctx, cluster, pets);
        const sts = await statefulSetRollout(ctx, cluster, pets);
        results.comparison = {
          cluster:
            "a private control plane (own etcd, apiserver, kcm with statefulset, scheduler, kwok; same binaries and kwok stages), both controllers in turn",
          petset: petsetThere,
          statefulset: sts,
          ratio: {
            rolloutWallTime: ratio(petsetThere.rolloutWallTime, sts.rolloutWallTime),
            createWallTime: ratio(petsetThere.createWallTime, sts.createWallTime),
          },
        };
        notes.push(
          "The comparison runs on a private second control plane started for it (test/cluster/up.sh with its own PETSET_CLUSTER_DIR; up.sh always runs the statefulset controller), so the shared cluster is never restarted; petset runs there too, so the ratio compares like with like.",
          "StatefulSet CPU/RSS are the whole kube-controller-manager's (all its controllers), so they bound the StatefulSet controller's from above.",
        );
      } finally {
        await cluster.stop();
      }
      server.statefulSetComparison = "private control plane";
    } else if (ctx.backend.name === "real") {
      notes.push("StatefulSet comparison not run (pass --statefulset).");
    }
    return {
      parameters: { pets, from: FROM, to: TO, podManagementPolicy: "OrderedReady" },
      results,
      notes,
      server,
    };
  },
};
