/**
 * Differential conformance: every scenario of scenarios/ runs against the embedded API server
 * (in this process) and a real kube-apiserver 1.33 (test/cluster/up.sh), each in a fresh
 * namespace of the same name; the normalized responses must be equal, except for the
 * differences allow-list.ts names with a reason. See docs/conformance.md.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiServer, startApiServer } from "../../src/apiserver-shim/index.js";
import { loadKubeConfig } from "../../src/util/kubeconfig.js";
import { createLogger } from "../../src/util/logger.js";
import { ALLOW_LIST } from "./allow-list.js";
import { type Server, serverFromKubeConfig } from "./client.js";
import { allowedBy, type Difference, describeDifference, diffStep } from "./diff.js";
import { normalizeResponses } from "./normalize.js";
import { createNamespace, runScenario } from "./runner.js";
import { SCENARIOS } from "./scenarios/index.js";
import type { AllowListEntry } from "./types.js";

const exec = promisify(execFile);
const REPO_ROOT = resolve(import.meta.dirname, "..", "..");
const RUN = Math.random().toString(36).slice(2, 7);

async function installCrds(kubeconfig: string): Promise<void> {
  const kubectl = (...args: string[]) =>
    exec("kubectl", ["--kubeconfig", kubeconfig, ...args], { cwd: REPO_ROOT, timeout: 120_000 });
  await kubectl("apply", "--server-side", "--force-conflicts", "-f", "crds/");
  await kubectl(
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    "crd/petsets.petset.dev",
    "crd/petsetversions.petset.dev",
  );
}

let embedded: Server;
let real: Server;
let shim: ApiServer | undefined;
let dir = "";
const namespaces: string[] = [];
const outcome = new Map<string, "equal" | "allow-listed" | "different">();
const usedEntries = new Set<AllowListEntry>();

beforeAll(async () => {
  const up = await exec("bash", ["test/cluster/up.sh"], { cwd: REPO_ROOT, timeout: 900_000 });
  const realKubeconfig = /^kubeconfig: (.+)$/m.exec(up.stdout)?.[1]?.trim();
  if (!realKubeconfig) throw new Error(`test/cluster/up.sh printed no kubeconfig line:\n${up.stdout}`);
  // A small watch window plays the part of kube's watch cache, which holds only recent
  // history: a watch from resourceVersion 1 must get 410 Expired on both.
  shim = await startApiServer({
    port: 0,
    logger: createLogger("warn", "conformance-apiserver"),
    watchWindow: 200,
  });
  dir = mkdtempSync(join(tmpdir(), "petset-conformance-"));
  const shimKubeconfig = join(dir, "kubeconfig");
  await shim.writeKubeconfig(shimKubeconfig);
  await Promise.all([installCrds(shimKubeconfig), installCrds(realKubeconfig)]);
  embedded = await serverFromKubeConfig("embedded", loadKubeConfig({ kubeconfig: shimKubeconfig }));
  real = await serverFromKubeConfig("real", loadKubeConfig({ kubeconfig: realKubeconfig }));
}, 900_000);

afterAll(async () => {
  const del = (s: Server | undefined, ns: string) =>
    s?.request({ method: "DELETE", path: `/api/v1/namespaces/${ns}` }).catch(() => undefined);
  await Promise.all(namespaces.map((ns) => del(real, ns)));
  await shim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  const count = (o: string) => [...outcome.values()].filter((v) => v === o).length;
  console.log(
    `conformance: ${outcome.size} scenarios, ${count("equal")} equal, ${count("allow-listed")} allow-listed, ${count("different")} different`,
  );
});

describe("embedded API server vs kube-apiserver", () => {
  it("has at least 60 scenarios with unique ids and step names", () => {
    expect(SCENARIOS.length).toBeGreaterThanOrEqual(60);
    expect(new Set(SCENARIOS.map((s) => s.id)).size).toBe(SCENARIOS.length);
    for (const s of SCENARIOS) expect(new Set(s.steps.map((st) => st.name)).size, s.id).toBe(s.steps.length);
  });

  it("every compare projection says why, and no allow-list entry covers a whole body", () => {
    const unexplained = SCENARIOS.flatMap((s) =>
      s.steps.flatMap((st) =>
        st.compare && st.compare !== "full" && st.compare.why.trim().length < 20
          ? [`${s.id} ${st.name}`]
          : [],
      ),
    );
    expect(unexplained, "projections without a reason").toEqual([]);
    // An entry for `body` would hide every difference of a response: name the field that differs.
    expect(ALLOW_LIST.filter((e) => e.path === "body").map((e) => `${e.scenario} ${e.step ?? "*"}`)).toEqual(
      [],
    );
    expect(ALLOW_LIST.filter((e) => e.reason.trim().length < 20).map((e) => `${e.scenario}`)).toEqual([]);
  });

  it.each(SCENARIOS.map((s, i) => [s.id, s, i] as const))("%s", async (_id, scenario, i) => {
    const ns = `cf-${RUN}-${i}`;
    namespaces.push(ns);
    const [e, r] = await Promise.all(
      [embedded, real].map(async (server) => {
        await createNamespace(server, ns, server === real);
        return normalizeResponses(await runScenario(server, scenario, ns));
      }),
    );
    const wrongOnReal = scenario.steps.flatMap((step, k) =>
      r?.[k]?.status === step.expect ? [] : [`${step.name}: kube-apiserver answered ${r?.[k]?.status}`],
    );
    expect(wrongOnReal, `${scenario.id}: the scenario's expected statuses`).toEqual([]);
    const diffs: Difference[] = scenario.steps.flatMap((step, k) => diffStep(step, e![k]!, r![k]!));
    const unexplained = diffs.filter((d) => {
      const entry = allowedBy(ALLOW_LIST, scenario.id, d);
      if (entry) usedEntries.add(entry);
      return !entry;
    });
    outcome.set(scenario.id, unexplained.length ? "different" : diffs.length ? "allow-listed" : "equal");
    expect(unexplained.map(describeDifference).join("\n"), `${scenario.id}: differences`).toBe("");
  });

  it("uses every allow-list entry (a stale entry hides nothing and must go)", ({ task, skip }) => {
    // Only a deliberate selection skips this check: with `-t`, vitest marks the scenarios the
    // filter leaves out as skipped, and entries of scenarios that did not run cannot be judged.
    // It is reported as skipped, never as passed.
    const ids = new Set(SCENARIOS.map((sc) => sc.id));
    const filteredOut = (task.suite?.tasks ?? []).filter((t) => ids.has(t.name) && t.mode === "skip");
    if (filteredOut.length > 0) skip(`a test-name filter left out ${filteredOut.length} scenarios`);
    // A scenario that failed before its differences were judged (wrong status on the real
    // server, an error) leaves its entries unjudged: that is a failure, not a pass.
    const unjudged = SCENARIOS.filter((sc) => !outcome.has(sc.id)).map((sc) => sc.id);
    expect(unjudged, "scenarios whose differences were never judged (they failed first)").toEqual([]);
    const stale = ALLOW_LIST.filter((e) => !usedEntries.has(e)).map(
      (e) => `${e.scenario} ${e.step ?? "*"} ${e.path}`,
    );
    expect(stale).toEqual([]);
  });
});
