/**
 * Kubernetes' StatefulSet e2e helpers (k8s.io/kubernetes v1.33.5, test/e2e/apps/statefulset.go,
 * wait.go and test/e2e/framework/statefulset/) re-expressed for PetSets, so each case in
 * test/upstream reads like its upstream original: same steps, same waits, same assertions.
 *
 * What stands in for real containers (docs/upstream-conformance.md):
 * - readiness probes: the pod annotation `kubelet.petset.dev/ready: "false"`, which the
 *   simulated kubelet and the kwok stages treat as a failing probe. PauseNewPods puts it in
 *   the template; ResumeNextPod, break/restoreHTTPProbe set or remove it on pods (upstream
 *   execs `touch` / `mv index.html` in the container);
 * - revisions: `status.currentVersion` / `updateVersion` and the pod label `petset.dev/version`
 *   play `currentRevision` / `updateRevision` and `controller-revision-hash`.
 * Every wait polls a condition with a deadline; the only fixed windows are upstream's "the
 * count stays" checks (confirmStatefulPodCount), shortened and started only once the
 * controller has observed the change.
 */
import { PatchStrategy, setHeaderOptions, type V1Pod } from "@kubernetes/client-node";
import { expect } from "vitest";
import { GROUP, PETSET_PLURAL, type PetSet, VERSION } from "../../src/api/index.js";
import {
  getPetSet,
  isReady,
  listPods,
  ordinal,
  patchPetSet,
  type RolloutEnv,
  SLOW_BACKEND,
  startRolloutEnv,
  versionOf,
  WAIT_MS,
  withDiagnostics,
} from "../integration/rollout-support.js";
import { eventually } from "../support/cluster.js";
import { startController } from "../support/controller.js";

export { getPetSet, isReady, listPods, ordinal, patchPetSet, versionOf, WAIT_MS };

export interface UpstreamEnv extends RolloutEnv {
  /**
   * Pods resumed by ResumeNextPod. Upstream's "continue" file lives on the pet's volume, so a
   * pet recreated later starts Ready; here every wait resumes such a pet's new pod again.
   */
  continued: Set<string>;
}

/** The readiness-probe stand-in of the simulated kubelet and the kwok stages. */
export const PROBE_ANNOTATION = "kubelet.petset.dev/ready";
/** imageutils Httpd and HttpdNew of upstream. */
export const WEBSERVER_IMAGE = "httpd:2.4.38-alpine";
export const NEW_WEBSERVER_IMAGE = "httpd:2.4.39-alpine";
export const HEADLESS_SVC = "test";
/** Upstream waits up to 10 min; the same deadline per step would hide a hang for too long. */
export const TEST_MS = SLOW_BACKEND ? 300_000 : 120_000;
/** confirmStatefulPodCount's window (upstream: 10 s), counted once the controller saw the change. */
const HOLD_MS = SLOW_BACKEND ? 5_000 : 2_000;
/** Several cases poll at once in one process with the embedded server: not every 100 ms. */
const POLL_MS = 250;

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const psPath = { group: GROUP, version: VERSION, plural: PETSET_PLURAL };

/** One namespace with the headless Service `test` and the controller (the BeforeEach). */
export async function startUpstreamEnv(prefix: string): Promise<UpstreamEnv> {
  // Its own controller with kube-controller-manager's lease timings: several cases at once
  // keep this process busy, and the 4 s test lease can lapse under load (the controller then
  // stops for good, by design).
  const base = await startRolloutEnv(prefix, { controller: false });
  const controller = await startController(base.cluster, base.namespace, {
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
  });
  const env: UpstreamEnv = {
    ...base,
    controller,
    continued: new Set<string>(),
    async stop() {
      await controller.stop();
      await base.stop();
    },
  };
  await env.core.createNamespacedService({
    namespace: env.namespace,
    body: {
      metadata: { name: HEADLESS_SVC },
      spec: { clusterIP: "None", selector: { foo: "bar" }, ports: [{ name: "http", port: 80 }] },
    },
  });
  return env;
}

export interface NewPetSetOptions {
  /** statefulPodMounts: one claim template `datadir` mounted at /data/. */
  claims?: boolean;
  labels?: Record<string, string>;
  /** e2estatefulset.PauseNewPods: new pods stay unready until resumed. */
  pauseNewPods?: boolean;
  spec?: Record<string, unknown>;
}

/**
 * e2estatefulset.NewStatefulSet as a PetSet. Cases share a namespace here (they run at
 * once), so the selector labels carry the PetSet's name besides upstream's foo=bar.
 */
export function newPetSet(name: string, replicas: number, o: NewPetSetOptions = {}): Record<string, unknown> {
  const labels = o.labels ?? { foo: "bar", baz: name };
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name },
    spec: {
      replicas,
      serviceName: HEADLESS_SVC,
      selector: { matchLabels: labels },
      template: {
        metadata: {
          labels,
          ...(o.pauseNewPods ? { annotations: { [PROBE_ANNOTATION]: "false" } } : {}),
        },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "webserver",
              image: WEBSERVER_IMAGE,
              ...(o.claims ? { volumeMounts: [{ name: "datadir", mountPath: "/data/" }] } : {}),
            },
          ],
        },
      },
      volumeClaimTemplates: o.claims
        ? [
            {
              metadata: { name: "datadir" },
              spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
            },
          ]
        : [],
      ...o.spec,
    },
  };
}

export async function createPetSet(env: UpstreamEnv, body: Record<string, unknown>): Promise<PetSet> {
  const created = await env.custom.createNamespacedCustomObject({
    ...psPath,
    namespace: env.namespace,
    body,
  });
  return created as PetSet;
}

/** WaitForState: polls the PetSet and its pods (sorted by ordinal) until `until` holds. */
export async function waitForState<T>(
  env: UpstreamEnv,
  name: string,
  what: string,
  until: (set: PetSet, pods: V1Pod[]) => T | undefined,
): Promise<T> {
  return withDiagnostics(env, name, () =>
    eventually(
      `${name}: ${what}`,
      async () => {
        const set = await getPetSet(env, name);
        const pods = await listPods(env, name);
        const again = pods.filter(
          (p) =>
            env.continued.has(p.metadata?.name ?? "") &&
            p.metadata?.annotations?.[PROBE_ANNOTATION] === "false",
        );
        if (again.length > 0) await setProbe(env, names(again), false);
        return until(set, pods);
      },
      WAIT_MS,
      POLL_MS,
    ),
  );
}

/** WaitForRunning: exactly `running` pods Running, the first `ready` of them Ready, the rest not. */
export function waitForRunning(env: UpstreamEnv, name: string, running: number, ready: number) {
  return waitForState(env, name, `${running} running, ${ready} ready`, (_s, pods) => {
    if (pods.length > running) throw new Error(`too many pods: ${pods.map((p) => p.metadata?.name)}`);
    if (pods.length < running) return undefined;
    const ok = pods.every((p, i) => p.status?.phase === "Running" && isReady(p) === i < ready);
    return ok ? pods : undefined;
  });
}

/** WaitForRunningAndReady */
export const waitForRunningAndReady = (env: UpstreamEnv, name: string, n: number) =>
  waitForRunning(env, name, n, n);

/** waitForRunningAndNotReady */
export const waitForRunningAndNotReady = (env: UpstreamEnv, name: string, n: number) =>
  waitForRunning(env, name, n, 0);

/** waitForStatus: observedGeneration caught up with the generation. */
export function waitForStatus(env: UpstreamEnv, name: string) {
  return waitForState(env, name, "status observed the generation", (s) =>
    (s.status?.observedGeneration ?? 0) >= (s.metadata.generation ?? 0) ? s : undefined,
  );
}

export function waitForStatusField(
  env: UpstreamEnv,
  name: string,
  field: "replicas" | "readyReplicas" | "availableReplicas" | "currentReplicas",
  n: number,
) {
  return waitForState(env, name, `status.${field} = ${n}`, (s) =>
    (s.status?.observedGeneration ?? 0) >= (s.metadata.generation ?? 0) && (s.status?.[field] ?? 0) === n
      ? s
      : undefined,
  );
}

export function waitForPodReady(env: UpstreamEnv, name: string, pod: string, ready = true) {
  return waitForState(env, name, `${pod} ${ready ? "" : "not "}ready`, (s, pods) => {
    const p = pods.find((x) => x.metadata?.name === pod);
    return p && isReady(p) === ready ? s : undefined;
  });
}

/** waitForRollingUpdate: every pet at the update version and current = update. */
export function waitForRollingUpdate(env: UpstreamEnv, name: string) {
  return waitForState(env, name, "rolling update complete", (s, pods) => {
    const ok =
      pods.length >= s.spec.replicas &&
      s.status?.updateVersion === s.status?.currentVersion &&
      pods.every((p) => versionOf(p) === s.status?.updateVersion);
    return ok ? { set: s, pods } : undefined;
  });
}

/** waitForPartitionedRollingUpdate: ordinals >= partition at the update version. */
export function waitForPartitionedRollingUpdate(env: UpstreamEnv, name: string) {
  return waitForState(env, name, "partitioned rolling update", (s, pods) => {
    const partition = Number(
      (s.spec.updateStrategy?.rollingUpdate as { partition?: number })?.partition ?? 0,
    );
    if (pods.length < s.spec.replicas) return undefined;
    if (partition <= 0 && s.status?.updateVersion !== s.status?.currentVersion) return undefined;
    for (let i = s.spec.replicas - 1; i >= partition; i--) {
      if (versionOf(pods[i] as V1Pod) !== s.status?.updateVersion) return undefined;
    }
    return { set: s, pods };
  });
}

/** Sets or removes the probe annotation on pods (upstream: exec in the container). */
async function setProbe(env: UpstreamEnv, pods: string[], failing: boolean): Promise<void> {
  await Promise.all(
    pods.map((pod) =>
      env.core
        .patchNamespacedPod(
          {
            name: pod,
            namespace: env.namespace,
            body: { metadata: { annotations: { [PROBE_ANNOTATION]: failing ? "false" : null } } },
          },
          merge,
        )
        // Restoring a pod that was replaced meanwhile: its new pod never had a failing probe.
        .catch((err: unknown) => {
          if (failing || (err as { code?: number }).code !== 404) throw err;
        }),
    ),
  );
}

const names = (pods: V1Pod[]) => pods.map((p) => p.metadata?.name ?? "");

/** breakHTTPProbe (every pod) / breakPodHTTPProbe (one pod). */
export async function breakProbe(env: UpstreamEnv, name: string, pod?: string): Promise<void> {
  const pods = pod ? [pod] : names(await listPods(env, name));
  for (const p of pods) env.continued.delete(p);
  await setProbe(env, pods, true);
}

/** restoreHTTPProbe / restorePodHTTPProbe */
export async function restoreProbe(env: UpstreamEnv, name: string, pod?: string): Promise<void> {
  await setProbe(env, pod ? [pod] : names(await listPods(env, name)), false);
}

/** ResumeNextPod: every pod Running, at most one paused (not Ready); that one resumes. */
export async function resumeNextPod(env: UpstreamEnv, name: string): Promise<void> {
  const pods = await listPods(env, name);
  let resumed: string | undefined;
  for (const p of pods) {
    if (p.status?.phase !== "Running")
      throw new Error(`found pod in phase ${p.status?.phase}: ${p.metadata?.name}`);
    if (isReady(p)) continue;
    if (resumed) throw new Error(`found multiple paused stateful pods: ${resumed} and ${p.metadata?.name}`);
    resumed = p.metadata?.name;
  }
  if (resumed) {
    env.continued.add(resumed);
    await setProbe(env, [resumed], false);
  }
}

/** Saturate: for each ordinal, wait for it Running (unready), then resume it. */
export async function saturate(env: UpstreamEnv, name: string, replicas: number): Promise<void> {
  for (let i = 0; i < replicas; i++) {
    await waitForRunning(env, name, i + 1, i);
    await resumeNextPod(env, name);
  }
}

/** deleteStatefulPodAtIndex: grace period 0. */
export async function deletePodAtIndex(env: UpstreamEnv, name: string, index: number): Promise<void> {
  await env.core.deleteNamespacedPod({
    name: `${name}-${index}`,
    namespace: env.namespace,
    gracePeriodSeconds: 0,
  });
}

/** UpdateReplicas / Scale's write. */
export const updateReplicas = (env: UpstreamEnv, name: string, replicas: number) =>
  patchPetSet(env, name, { spec: { replicas } });

/** e2estatefulset.Scale: set replicas, wait until exactly that many pods exist. */
export async function scale(env: UpstreamEnv, name: string, replicas: number): Promise<void> {
  await updateReplicas(env, name, replicas);
  await waitForState(env, name, `${replicas} pods`, (_s, pods) =>
    pods.length === replicas ? true : undefined,
  );
}

/**
 * confirmStatefulPodCount: once the controller has observed the new spec, the number of pods
 * stays `count` for the window (hard), or reaches it (soft). Polls continuously.
 */
export async function confirmStatefulPodCount(env: UpstreamEnv, name: string, count: number, hard: boolean) {
  await waitForStatus(env, name);
  if (!hard) {
    await waitForState(env, name, `${count} pods`, (_s, pods) => (pods.length === count ? true : undefined));
    return;
  }
  const deadline = Date.now() + HOLD_MS;
  while (Date.now() < deadline) {
    const pods = await listPods(env, name);
    expect(names(pods), `${name} scaled unexpectedly`).toHaveLength(count);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** The pod's controllerRef, as metav1.GetControllerOf. */
export function controllerOf(pod: V1Pod) {
  return pod.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** updateStatefulSetWithRetries, as a JSON merge patch (no read-modify-write to retry). */
export async function updatePetSet(env: UpstreamEnv, name: string, body: Record<string, unknown>) {
  await env.custom.patchNamespacedCustomObject({ ...psPath, namespace: env.namespace, name, body }, merge);
  return getPetSet(env, name);
}

/** Pod names, for expectPodNames / waitForPodNames. */
export function waitForPodNames(env: UpstreamEnv, name: string, expected: string[]) {
  return waitForState(env, name, `pods ${expected.join(",")}`, (_s, pods) =>
    JSON.stringify(names(pods)) === JSON.stringify(expected) ? pods : undefined,
  );
}

/**
 * verifyStatefulSetPVCsExist: exactly the claims `datadir-<name>-<i>` for `ids` exist (as
 * upstream, a claim being deleted still exists).
 */
export async function verifyClaimsExist(env: UpstreamEnv, name: string, ids: number[]) {
  const want = ids.map((i) => `datadir-${name}-${i}`).sort();
  return eventually(
    `claims of ${name}: ${want.join(",")}`,
    async () => {
      const claims = (await env.core.listNamespacedPersistentVolumeClaim({ namespace: env.namespace })).items;
      const mine = claims
        .filter(
          (c) =>
            /^\d+$/.test(c.metadata?.name?.slice(`datadir-${name}-`.length) ?? "") &&
            c.metadata?.name?.startsWith(`datadir-${name}-`),
        )
        .map((c) => c.metadata?.name ?? "")
        .sort();
      return JSON.stringify(mine) === JSON.stringify(want) ? claims : undefined;
    },
    WAIT_MS,
  );
}
