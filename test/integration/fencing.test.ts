/**
 * Fencing (SPEC rules 7 and 9, docs/operations.md "Fencing"): a leader frozen mid-rollout
 * (SIGSTOP) past its Lease, while a second replica takes over and carries on, writes nothing
 * once it is resumed (SIGCONT): not a pod, not a status, not an Event, not the Lease. It sees
 * it lost the Lease and exits with code 1; the new leader finishes the rollout; no invariant
 * breaks. Writes are counted by the server, not by the replica: the embedded server's request
 * log, kube-apiserver's audit log on the real backend, both keyed by the User-Agent that
 * names the replica.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendFromEnv, eventually, type ReceivedWrite } from "../support/cluster.js";
import {
  type ControllerHandle,
  type ControllerProcess,
  leaseHolder,
  startController,
  startControllerProcess,
} from "../support/controller.js";
import { dispatchedWrites, notCheckedBefore } from "../support/fence-accounting.js";
import {
  createPetSet,
  expectNoViolations,
  expectWellFormedHistory,
  listVersions,
  monitor,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
  withDiagnostics,
} from "./rollout-support.js";

let env: RolloutEnv;
let frozen: ControllerProcess | undefined;
let successor: ControllerHandle | undefined;

beforeAll(async () => {
  env = await startRolloutEnv("fencing", { controller: false });
});

afterAll(async () => {
  // A test that failed between SIGSTOP and SIGCONT must not leave a stopped process behind.
  if (frozen?.child.pid !== undefined && frozen.child.exitCode === null) {
    frozen.child.kill("SIGCONT");
    await frozen.kill();
  }
  await successor?.stop();
  await env?.stop();
});

/** A replica's requests carry `petset-controller/<version> (<identity>)`. */
const agentOf = (identity: string) => `(${identity})`;

const describeWrites = (ws: ReceivedWrite[]) =>
  ws.map((w) => `${w.at.toISOString()} ${w.verb} ${w.uri}`).join("\n");

/** `p`'s value, or `otherwise` when it has not settled within `ms`. */
async function within<T, U>(p: Promise<T>, ms: number, otherwise: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<U>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  try {
    return await Promise.race([p, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function startLeader(): Promise<ControllerProcess> {
  const p = startControllerProcess(env.cluster, env.namespace, { logLevel: "debug" });
  await eventually(
    "the controller process leads",
    async () =>
      (await leaseHolder(env.cluster.kubeConfig, env.namespace)) === p.identity ? true : undefined,
    WAIT_MS,
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${p.log()}`);
  });
  return p;
}

describe.skipIf(backendFromEnv() === "kubeconfig")("fencing: a leader frozen past its Lease", () => {
  it(
    "writes nothing once resumed and exits; the new leader finishes the rollout",
    async () => {
      const start = new Date();
      const a = await startLeader();
      frozen = a;
      await createPetSet(env, petSetManifest("fence", { image: "nginx:1.26" }));
      await waitRolledOut(env, "fence", 1);
      // The log sees this replica's writes at all (else "zero writes" below proves nothing).
      const before = await env.cluster.writesBy(agentOf(a.identity), start);
      expect(before.some((w) => w.uri.includes("/pods"))).toBe(true);
      expect(before.some((w) => w.uri.includes("/leases"))).toBe(true);

      const m = await monitor(env, "fence");
      await setImage(env, "fence", "nginx:slow");
      await eventually(
        "the first pod of the rollout deleted",
        () => (m.moves().some((x) => x.kind === "delete") ? true : undefined),
        WAIT_MS,
        20,
      );
      const pid = a.child.pid as number;
      process.kill(pid, "SIGSTOP");
      const frozenAt = new Date();

      const b = await startController(env.cluster, env.namespace);
      successor = b;
      await eventually(
        "the second replica holds the Lease",
        async () =>
          (await leaseHolder(env.cluster.kubeConfig, env.namespace)) === b.identity ? true : undefined,
        WAIT_MS,
      );
      // Beyond the Lease: the new leader has moved a pod (a pod write it counted, seen by the watch).
      const movesAtTakeover = m.moves().length;
      await withDiagnostics(env, "fence", () =>
        eventually(
          "the new leader moves a pod",
          async () => {
            const podWrites = (await b.controller.metrics.apiWrites.get()).values
              .filter((v) => v.labels.resource === "pods")
              .reduce((sum, v) => sum + v.value, 0);
            return podWrites > 0 && m.moves().length > movesAtTakeover ? true : undefined;
          },
          WAIT_MS,
        ),
      );
      const bWrites = await env.cluster.writesBy(agentOf(b.identity), frozenAt);
      expect(bWrites.some((w) => w.uri.includes("/pods"))).toBe(true);

      const resumedAt = new Date();
      process.kill(pid, "SIGCONT");
      const code = await within(a.exited, WAIT_MS, "still running");
      expect(code, `the resumed replica should exit 1:\n${a.log().slice(-3000)}`).toBe(1);
      expect(a.log()).toMatch(/lost leadership/);

      await waitRolledOut(env, "fence", 2, WAIT_MS * 2);
      const late = await env.cluster.writesBy(agentOf(a.identity), resumedAt);
      const between = await env.cluster.writesBy(agentOf(a.identity), frozenAt);
      const earlier = (await env.cluster.writesBy(agentOf(a.identity), start)).filter(
        (w) => w.at.getTime() < resumedAt.getTime(),
      );
      // A write that passed its last check before the freeze and was stopped on its way to the
      // kernel leaves on resume (docs/operations.md, "What is not"): the replica's own log says
      // when each write was checked. Every other write after the resume is a fencing failure.
      expect(
        describeWrites(notCheckedBefore(late, earlier, dispatchedWrites(a.log()), frozenAt)),
        `writes of the replica after it was resumed at ${resumedAt.toISOString()} (frozen at ${frozenAt.toISOString()}), ` +
          `not checked before the freeze (its writes since the freeze:\n${describeWrites(between)}\nits log:\n${a.log().slice(-6000)})`,
      ).toBe("");
      expect(await leaseHolder(env.cluster.kubeConfig, env.namespace)).toBe(b.identity);
      expectWellFormedHistory(await listVersions(env, "fence"), "fence");
      await expectNoViolations(m);
    },
    TEST_MS,
  );
});
