/**
 * Lifecycle hooks end to end, on both backends (docs/hooks.md): exec in the pets through
 * pods/exec, a webhook babysitter on loopback, the external handshake answered by
 * `kubectl petset observe` running a bash script, timeouts, Rollback and a rollback while a
 * hook runs. The invariant monitor watches every rollout. Hooks across a change of
 * controller: hooks-takeover.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConditionTypes, type HookRecord } from "../../src/api/index.js";
import { eventually } from "../support/cluster.js";
import { hookRecords, pendingHandshake, runPlugin, spawnPlugin } from "./hooks-support.js";
import {
  condition,
  createPetSet,
  expectNoViolations,
  getPetSet,
  listClaims,
  listPods,
  listVersions,
  monitor,
  patchPetSet,
  petSetManifest,
  type RolloutEnv,
  setImage,
  startRolloutEnv,
  TEST_MS,
  WAIT_MS,
  waitRolledOut,
} from "./rollout-support.js";

let env: RolloutEnv;
let dir: string;
let babysitter: Server;
let babysitterUrl: string;
/** What the webhook babysitter was asked, and how it answers (by PETSET_TO_VERSION). */
const reviews: Array<Record<string, unknown>> = [];
const answers = new Map<number, "Succeeded" | "Failed">();

beforeAll(async () => {
  env = await startRolloutEnv("hooks");
  dir = mkdtempSync(join(tmpdir(), "petset-hooks-"));
  babysitter = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const review = JSON.parse(body) as { request: Record<string, unknown> };
      reviews.push(review.request);
      const result = answers.get(Number(review.request.toVersion)) ?? "Succeeded";
      res.setHeader("Content-Type", "application/json");
      res.end(
        JSON.stringify({
          apiVersion: "hooks.petset.dev/v1",
          kind: "HookReview",
          response: { uid: review.request.uid, result, message: `babysitter says ${result}` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => babysitter.listen(0, "127.0.0.1", resolve));
  babysitterUrl = `http://127.0.0.1:${(babysitter.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  await env?.stop();
  await new Promise<void>((resolve) => babysitter?.close(() => resolve()));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const records = (name: string): Promise<HookRecord[]> => hookRecords(env, name);

/** An exec hook that appends its context to a file of this test (the commands run on this machine). */
function logHook(file: string, extra: Record<string, unknown> = {}) {
  return {
    exec: {
      command: [
        "sh",
        "-c",
        `echo "$PETSET_HOOK $PETSET_POD $PETSET_ORDINAL $PETSET_FROM_VERSION $PETSET_TO_VERSION $PETSET_NAME $PETSET_HOOK_ID" >> ${file}`,
      ],
    },
    timeoutSeconds: 60,
    ...extra,
  };
}

const progressing = async (name: string) => condition(await getPetSet(env, name), ConditionTypes.progressing);

describe("lifecycle hooks", () => {
  it(
    "exec preUpdate and webhook postUpdate run for each pet in reverse ordinal order, with the context",
    async () => {
      const log = join(dir, "rollout.log");
      writeFileSync(log, "");
      await createPetSet(
        env,
        petSetManifest("web", {
          spec: {
            lifecycle: {
              preUpdate: logHook(log),
              postUpdate: { webhook: { url: babysitterUrl }, timeoutSeconds: 60 },
            },
          },
        }),
      );
      await waitRolledOut(env, "web", 1);
      const m = await monitor(env, "web");
      await setImage(env, "web", "nginx:1.27");
      await waitRolledOut(env, "web", 2);
      const order = (await records("web")).map((r) => `${r.hook} ${r.pod} ${r.phase}`);
      expect(order).toEqual([
        "preUpdate web-2 Succeeded",
        "postUpdate web-2 Succeeded",
        "preUpdate web-1 Succeeded",
        "postUpdate web-1 Succeeded",
        "preUpdate web-0 Succeeded",
        "postUpdate web-0 Succeeded",
      ]);
      const lines = readFileSync(log, "utf8").trim().split("\n");
      expect(lines.map((l) => l.split(" ").slice(0, 6).join(" "))).toEqual([
        "preUpdate web-2 2 1 2 web",
        "preUpdate web-1 1 1 2 web",
        "preUpdate web-0 0 1 2 web",
      ]);
      expect(lines[0]?.split(" ")[6]).toMatch(/^preUpdate\.web\.v2\.2\./);
      expect(
        reviews
          .filter((r) => r.petSet === "web")
          .map((r) => `${r.hook} ${r.pod} ${r.fromVersion}->${r.toVersion}`),
      ).toEqual(["postUpdate web-2 1->2", "postUpdate web-1 1->2", "postUpdate web-0 1->2"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a failing postUpdate with failurePolicy Rollback rolls back to the last complete version",
    async () => {
      answers.set(2, "Failed");
      await createPetSet(
        env,
        petSetManifest("rb", {
          spec: {
            lifecycle: {
              postUpdate: { webhook: { url: babysitterUrl }, timeoutSeconds: 60, failurePolicy: "Rollback" },
            },
          },
        }),
      );
      await waitRolledOut(env, "rb", 1);
      const m = await monitor(env, "rb");
      await setImage(env, "rb", "nginx:1.27");
      await waitRolledOut(env, "rb", 3);
      const versions = await listVersions(env, "rb");
      expect(versions.find((v) => v.spec.version === 3)?.spec.rollbackOf).toBe(1);
      const failed = (await records("rb")).find((r) => r.toVersion === 2);
      expect(failed).toMatchObject({
        hook: "postUpdate",
        pod: "rb-2",
        phase: "Failed",
        outcome: "RolledBack",
      });
      expect(failed?.message).toBe("babysitter says Failed");
      expect((await records("rb")).filter((r) => r.phase === "Running")).toEqual([]);
      answers.delete(2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a hook that hangs fails at its timeout: Progressing=False HookFailed, no pet moved; hook retry and a fix move on",
    async () => {
      const flag = join(dir, "hang-ok");
      await createPetSet(
        env,
        petSetManifest("hang", {
          spec: {
            lifecycle: {
              preUpdate: {
                // Hangs until the fix (the flag) lands. A command still running past its
                // timeout keeps the hook's lock (docs/hooks.md, "exec: one at a time"), so the
                // retry runs once this one has ended, never beside it.
                exec: { command: ["sh", "-c", `while [ ! -f ${flag} ]; do sleep 0.2; done`] },
                timeoutSeconds: 3,
              },
            },
          },
        }),
      );
      await waitRolledOut(env, "hang", 1);
      const m = await monitor(env, "hang");
      await setImage(env, "hang", "nginx:1.27");
      const stuck = await eventually(
        "HookFailed",
        async () => {
          const c = await progressing("hang");
          return c?.reason === "HookFailed" ? c : undefined;
        },
        WAIT_MS,
      );
      expect(stuck.status).toBe("False");
      expect(stuck.message).toContain(
        "hook preUpdate on hang-2 failed after 1 attempt(s): timed out after 3s",
      );
      expect(
        (await listPods(env, "hang")).every((p) => p.metadata?.labels?.["petset.dev/version"] === "1"),
      ).toBe(true);
      const list = await runPlugin(env, ["hook", "list", "hang"]);
      expect(list.stdout).toMatch(/preUpdate\s+hang-2\s+v2\s+Failed \(Paused\)/);
      writeFileSync(flag, "");
      const retry = await runPlugin(env, ["hook", "retry", "hang"]);
      expect(retry.stdout).toContain("hook preUpdate on hang-2 will run again (attempt 2)");
      await waitRolledOut(env, "hang", 2);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "preScaleDown handshakes answered by kubectl petset observe: pets 4 then 3 leave in order, claims only after",
    async () => {
      const log = join(dir, "scale.log");
      writeFileSync(log, "");
      const script = join(dir, "leave.sh");
      writeFileSync(
        script,
        `#!/usr/bin/env bash\nset -eu\necho "$PETSET_HOOK $PETSET_POD $PETSET_REPLICAS" >> ${log}\n`,
        { mode: 0o755 },
      );
      await createPetSet(
        env,
        petSetManifest("db", {
          replicas: 5,
          claims: ["data"],
          spec: {
            persistentVolumeClaimRetentionPolicy: { whenScaled: "Delete" },
            lifecycle: { preScaleDown: { external: {}, timeoutSeconds: 120 } },
          },
        }),
      );
      await waitRolledOut(env, "db", 1);
      const m = await monitor(env, "db");
      const observer = spawnPlugin(env, ["observe", "db", "--interval", "200ms", "--", script]);
      try {
        await patchPetSet(env, "db", { spec: { replicas: 3 } });
        await eventually(
          "db at 3 pets, claims of 3 and 4 gone",
          async () => {
            const pods = await listPods(env, "db");
            const claims = (await listClaims(env)).map((c) => c.metadata?.name);
            return pods.length === 3 && !claims.includes("data-db-4") && !claims.includes("data-db-3")
              ? true
              : undefined;
          },
          WAIT_MS,
        );
      } finally {
        observer.kill("SIGTERM");
      }
      expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([
        "preScaleDown db-4 5→3",
        "preScaleDown db-3 4→3",
      ]);
      const moves = m
        .moves()
        .filter((x) => x.kind === "delete")
        .map((x) => x.pod);
      expect(moves).toEqual(["db-4", "db-3"]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a rollback while a hook runs cancels it: nothing stays stuck in the superseded version's hook",
    async () => {
      await createPetSet(
        env,
        petSetManifest("back", {
          spec: { lifecycle: { preUpdate: { external: {}, timeoutSeconds: 300 } } },
        }),
      );
      await waitRolledOut(env, "back", 1);
      const m = await monitor(env, "back");
      await setImage(env, "back", "nginx:1.27");
      await pendingHandshake(env, "back");
      const rollback = await runPlugin(env, ["rollback", "back"]);
      expect(rollback.code).toBe(0);
      await waitRolledOut(env, "back", 3);
      const rs = await records("back");
      expect(rs.find((r) => r.toVersion === 2)).toMatchObject({ phase: "Cancelled" });
      expect(rs.filter((r) => r.phase === "Running")).toEqual([]);
      const pods = await listPods(env, "back");
      expect(pods.every((p) => p.metadata?.annotations?.["hooks.petset.dev/request"] === undefined)).toBe(
        true,
      );
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it(
    "a preRollout Job with the new version's template that fails: no pet moves; a fixed version's Job passes",
    async () => {
      // The Job's container exits with $PETSET_SIMULATED_EXIT: really on the embedded server,
      // through the kwok job stage on the real backend (docs/jobs.md).
      const migrate = {
        job: { command: ["sh", "-c", 'exit "$PETSET_SIMULATED_EXIT"'] },
        timeoutSeconds: 120,
      };
      await createPetSet(env, petSetManifest("mig", { spec: { lifecycle: { preRollout: migrate } } }));
      await waitRolledOut(env, "mig", 1);
      const m = await monitor(env, "mig");
      const withEnv = (image: string, exit: string) =>
        patchPetSet(env, "mig", {
          spec: {
            template: {
              spec: {
                containers: [{ name: "app", image, env: [{ name: "PETSET_SIMULATED_EXIT", value: exit }] }],
              },
            },
          },
        });
      await withEnv("nginx:1.27", "3");
      const failed = await eventually(
        "the preRollout hook failed",
        async () => {
          const c = await progressing("mig");
          return c?.reason === "HookFailed" ? c : undefined;
        },
        WAIT_MS,
      );
      expect(failed.message).toContain("hook preRollout of version 2 failed");
      expect(failed.message).toMatch(/Job mig-prerollout-[0-9a-f]+ failed/);
      const pods = await listPods(env, "mig");
      expect(pods.every((p) => p.metadata?.labels?.["petset.dev/version"] === "1")).toBe(true);
      await withEnv("nginx:1.28", "0");
      await waitRolledOut(env, "mig", 3);
      const rs = await records("mig");
      expect(rs.map((r) => `${r.hook} v${r.toVersion} ${r.phase}`)).toEqual([
        "preRollout v2 Failed",
        "preRollout v3 Succeeded",
      ]);
      await expectNoViolations(m);
    },
    TEST_MS,
  );

  it("invalid hooks are refused by the API server with the field named", async () => {
    const bad = petSetManifest("bad", {
      spec: {
        lifecycle: {
          preRollout: { exec: { command: ["x"] }, timeoutSeconds: 10 },
          preScaleDown: { external: {}, timeoutSeconds: 10, failurePolicy: "Rollback" },
          postUpdate: { webhook: { url: "http://example.com/x" }, timeoutSeconds: 10 },
        },
      },
    });
    const r = await env.cluster.kubectl(["apply", "-n", env.namespace, "-f", "-"], {
      input: JSON.stringify(bad),
      allowFail: true,
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "spec.lifecycle.preRollout.exec: Forbidden: preRollout runs once per version, not in a pet",
    );
    expect(r.stderr).toContain("spec.lifecycle.preScaleDown.failurePolicy: Invalid value");
    expect(r.stderr).toContain("spec.lifecycle.postUpdate.webhook.url: Invalid value");
  });
});
