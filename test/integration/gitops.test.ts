import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Annotations } from "../../src/api/index.js";
import { eventually, startTestCluster, type TestCluster } from "../support/cluster.js";
import { installKubectlPlugin, type KubectlPlugin } from "../support/kubectl-plugin.js";
import { type ApplyMode, Env, MANAGER, manifest, stopControllers, WAIT_MS } from "./user-env.js";

let cluster: TestCluster;
let plugin: KubectlPlugin;

beforeAll(async () => {
  plugin = installKubectlPlugin("gitops");
  cluster = await startTestCluster();
});
afterEach(async () => {
  await stopControllers();
});
afterAll(async () => {
  await cluster?.stop();
  plugin?.remove();
});

/** `kubectl petset ARGS` as a user runs it: kubectl finds the plugin on PATH. */
const kubectlPetset = (env: Env, ...args: string[]) =>
  plugin.run({ kubeconfigPath: cluster.kubeconfigPath, namespace: env.ns }, args, WAIT_MS);

/** Two commits of the Git repository: the older (nginx 1.26) and the newer (1.27). */
const commitA = manifest("web", { image: "nginx:1.26" });
const commitB = manifest("web", { image: "nginx:1.27" });

async function waitAvailable(env: Env): Promise<string> {
  const res = await env.kubectl(["wait", "--for=condition=Available", "--timeout=90s", "petset/web"]);
  return res.stdout.trim();
}

async function waitRolloutComplete(env: Env): Promise<string> {
  const reason = '--for=jsonpath={.status.conditions[?(@.type=="Progressing")].reason}=RolloutComplete';
  return (await env.kubectl(["wait", reason, "--timeout=90s", "petset/web"])).stdout.trim();
}

describe.each<ApplyMode>(["client-side", "server-side"])("GitOps with kubectl apply (%s)", (mode) => {
  it("syncing the same commit creates and restarts nothing; an older commit is a rollback version", async () => {
    const env = await Env.start(cluster, `gitops-${mode === "client-side" ? "csa" : "ssa"}`);
    await env.apply(commitA, mode);
    expect(await waitAvailable(env)).toBe("petset.petset.dev/web condition met");
    expect(await waitRolloutComplete(env)).toBe("petset.petset.dev/web condition met");
    await env.waitRolledOut("web", 1);

    // A GitOps tool syncs the same commit over and over.
    const uids = await env.podUids("web");
    const generation = (await env.petSet("web")).metadata.generation;
    for (let i = 0; i < 3; i++) await env.apply(commitA, mode);
    expect((await env.petSet("web")).metadata.generation).toBe(generation);
    await env.barrier("web");
    expect(await env.numbers("web")).toEqual([1]);
    expect(await env.podUids("web")).toEqual(uids);

    await env.apply(commitB, mode);
    await env.waitVersion("web", 2);
    await env.waitRolledOut("web", 2);
    expect(await waitAvailable(env)).toBe("petset.petset.dev/web condition met");

    // `git revert`: the older commit is applied; a new version records it as a rollback.
    await env.apply(commitA, mode);
    const v3 = await env.waitVersion("web", 3);
    expect(v3.spec).toMatchObject({ rollbackOf: 1, changedBy: MANAGER[mode] });
    await env.waitRolledOut("web", 3);
    expect(await waitRolloutComplete(env)).toBe("petset.petset.dev/web condition met");
    await env.apply(commitA, mode);
    await env.barrier("web");
    expect(await env.numbers("web")).toEqual([1, 2, 3]);
  });

  it("after an imperative rollback, the next sync from Git makes the Git content newest again", async () => {
    const env = await Env.start(cluster, `gitops-rb-${mode === "client-side" ? "csa" : "ssa"}`);
    await env.apply(commitA, mode);
    await env.waitVersion("web", 1);
    await env.apply(commitB, mode);
    await env.waitRolledOut("web", 2);

    // An operator rolls back by hand while Git still says 1.27.
    const rollback = await kubectlPetset(env, "rollback", "web", "--to-version", "1", "--timeout", "90s");
    expect(rollback).toMatchObject({ code: 0, stderr: "" });
    expect(rollback.stdout).toBe(
      "petset.petset.dev/web rolled back to version 1\ncreated version web-v3 (rollbackOf 1)\n",
    );
    const v3 = await env.waitVersion("web", 3);
    expect(v3.spec).toMatchObject({
      rollbackOf: 1,
      changeCause: "rollback to version 1",
      changedBy: "kubectl-petset",
    });
    await env.waitRolledOut("web", 3);

    // managedFields times have a one-second resolution: let the next write be later than
    // the rollback's, so `changedBy` can tell who wrote last.
    const rolledBackAt = (await env.petSet("web")).metadata.managedFields
      ?.filter((f) => f.manager === "kubectl-petset")
      .map((f) => Date.parse(String(f.time)))[0];
    await eventually("a later second than the rollback's", () =>
      Date.now() >= (rolledBackAt ?? 0) + 1000 ? true : undefined,
    );

    if (mode === "server-side") {
      // The rollback took the image over (field manager kubectl-petset): a plain server-side
      // apply is refused with a conflict; GitOps tools force (Flux always, Argo CD with
      // ServerSideApply=true), kubectl users pass --force-conflicts.
      const refused = await env.kubectl(["apply", "--server-side", "-f", "-"], {
        input: commitB,
        allowFail: true,
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('conflict with "kubectl-petset"');
      expect(refused.stderr).toContain('.spec.template.spec.containers[name="app"].image');
      await env.kubectl(["apply", "--server-side", "--force-conflicts", "-f", "-"], { input: commitB });
    } else {
      await env.apply(commitB, mode);
    }
    // Git's content is newest again: a new version repeating v2's, the pods follow Git.
    const v4 = await env.waitVersion("web", 4);
    expect(v4.spec).toMatchObject({
      rollbackOf: 2,
      changedBy: MANAGER[mode],
      // The rollback's annotation is still on the PetSet (no apply removes what it does not
      // own), but it describes v3, not this change: the cause is derived.
      changeCause: "image app: nginx:1.26 -> nginx:1.27",
    });
    expect((await env.petSet("web")).metadata.annotations?.[Annotations.changeCause]).toBe(
      "rollback to version 1",
    );
    const pods = await env.waitRolledOut("web", 4);
    for (const p of pods) expect(p.spec?.containers[0]?.image).toBe("nginx:1.27");
    expect(await waitAvailable(env)).toBe("petset.petset.dev/web condition met");
    await env.apply(commitB, mode);
    await env.barrier("web");
    expect(await env.numbers("web")).toEqual([1, 2, 3, 4]);
  });
});
