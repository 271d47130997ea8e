/**
 * A/B of the controller's CPU per pet on one workload: two (or more) controller builds or node
 * flag sets, each run against a fresh `petset dev --no-controller` for N rollouts of one PetSet,
 * alternated, CPU from /proc per rollout. The rollout comparison with kube-controller-manager
 * (bench/rollout-compare.ts) is the published figure; its 3 rounds spread ±20 % on both sides,
 * too much to tell a 5 % lever from noise (docs/benchmarks.md §3g). Here only petset runs, on
 * the embedded server's simulated kubelet, many rounds a side.
 *
 *   node dist/hack/cpu-ab.js --side "base=/path/to/old/dist/src/cli/petset.bundle.js" \
 *     --side "new=dist/src/cli/petset.bundle.js" [--side "new-gc=dist/...|--single-threaded-gc"] \
 *     [--pets 20] [--max-unavailable 10] [--rollouts 10] [--alternations 2] [--pod-management Parallel]
 *
 * A side is `name=bundle[|node flags[|node binary]]` (the binary: another Node release, as the
 * image's Node 24 against the machine's); every side also gets the image's heap flags (`--heap-growing-percent=15
 * --max-semi-space-size=16`, a side's own flags after them win) and
 * MALLOC_ARENA_MAX=2 as the image runs it. Prints one JSON line per side run, then a summary; both
 * give, beside CPU, the syncs, API writes and watch events per pet from the controller's /metrics.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { Command } from "commander";
import { z } from "zod";

const Options = z.object({
  side: z
    .array(
      z
        .string()
        .regex(/^[\w.-]+=[^|]+(\|[^|]*(\|[^|]+)?)?$/, "a side is name=bundle[|node flags[|node binary]]"),
    )
    .min(1),
  pets: z.coerce.number().int().positive(),
  maxUnavailable: z.coerce.number().int().positive(),
  rollouts: z.coerce.number().int().positive(),
  podManagement: z.enum(["Parallel", "OrderedReady"]),
  alternations: z.coerce.number().int().positive(),
});

const StatusSchema = z.looseObject({
  metadata: z.looseObject({ generation: z.number().optional() }),
  status: z
    .looseObject({
      observedGeneration: z.number().optional(),
      replicas: z.number().optional(),
      readyReplicas: z.number().optional(),
      updatedReplicas: z.number().optional(),
      currentVersion: z.number().optional(),
      updateVersion: z.number().optional(),
    })
    .optional(),
});

const REF = { group: "petset.dev", version: "v1alpha1", namespace: "default", plural: "petsets" };
const NAME = "ab";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A free local port for the controller's /metrics (read per rollout below). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() =>
        typeof addr === "object" && addr !== null ? resolve(addr.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Counts per rollout beside CPU: what a lever changes, without CPU's noise. */
const COUNTED = ["petset_syncs_total", "petset_api_writes_total", "petset_watch_events_total"] as const;

/** Sums of the COUNTED counters (every label set) on the controller's /metrics. */
async function counters(port: number): Promise<Record<(typeof COUNTED)[number], number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const sums = Object.fromEntries(COUNTED.map((n) => [n, 0])) as Record<(typeof COUNTED)[number], number>;
  for (const line of text.split("\n")) {
    const m = /^(\w+)(?:\{[^}]*\})? (\S+)$/.exec(line);
    const name = m?.[1] as (typeof COUNTED)[number] | undefined;
    if (m && name !== undefined && COUNTED.includes(name)) sums[name] += Number(m[2]);
  }
  return sums;
}

/** The process's CPU seconds, user and system (`/proc/PID/stat` utime and stime). */
function cpuSeconds(pid: number): { user: number; system: number } {
  const fields = (readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").split(" ");
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100 };
}

async function until<T>(
  what: string,
  ms: number,
  probe: () => Promise<T | undefined>,
  gone?: () => string | undefined,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const why = gone?.();
    if (why !== undefined) throw new Error(`${why} while waiting for ${what}`);
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function manifest(o: z.infer<typeof Options>, image: string) {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name: NAME },
    spec: {
      replicas: o.pets,
      serviceName: NAME,
      selector: { matchLabels: { app: NAME } },
      podManagementPolicy: o.podManagement,
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: o.maxUnavailable } },
      template: { metadata: { labels: { app: NAME } }, spec: { containers: [{ name: "c", image }] } },
    },
  };
}

/** One side: a fresh server, the controller, one PetSet created and rolled `rollouts` times. */
async function runSide(
  side: string,
  o: z.infer<typeof Options>,
): Promise<{ msPerPet: number[]; perPet: Record<string, number> }> {
  const [name, rest] = side.split(/=(.*)/s) as [string, string];
  const [bundle, flags = "", node = process.execPath] = rest.split("|") as [string, string?, string?];
  const dir = mkdtempSync(join(tmpdir(), "petset-cpu-ab-"));
  const kubeconfig = join(dir, "kubeconfig");
  const procs: ChildProcess[] = [];
  try {
    procs.push(
      spawn(
        process.execPath,
        ["dist/src/cli/petset.bundle.js", "dev", "--no-controller", "--kubeconfig", kubeconfig],
        { stdio: "ignore" },
      ),
    );
    await until("the embedded server's kubeconfig", 60_000, async () => existsSync(kubeconfig) || undefined);
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const api = kc.makeApiClient(CustomObjectsApi);
    await until("the PetSet CRD", 60_000, async () => (await api.listNamespacedCustomObject(REF)) && true);
    const port = await freePort();
    const controller = spawn(
      node || process.execPath,
      [
        "--heap-growing-percent=15",
        "--max-semi-space-size=16",
        ...flags.split(" ").filter(Boolean),
        bundle,
        "controller",
        "--kubeconfig",
        kubeconfig,
        "--no-leader-elect",
        "--metrics-addr",
        `127.0.0.1:${port}`,
        "--log-level",
        "warn",
      ],
      { stdio: "ignore", env: { ...process.env, MALLOC_ARENA_MAX: "2" } },
    );
    procs.push(controller);
    const pid = controller.pid ?? 0;
    // A controller that cannot start (a bundle away from its package.json) exits at once.
    const gone = () =>
      controller.exitCode !== null || controller.signalCode !== null
        ? `the controller exited (${controller.exitCode ?? controller.signalCode})`
        : undefined;
    const settled = (generation: number) =>
      until(
        `rollout of generation ${generation}`,
        300_000,
        async () => {
          const s = StatusSchema.parse(await api.getNamespacedCustomObject({ ...REF, name: NAME })).status;
          return s !== undefined &&
            (s.observedGeneration ?? 0) >= generation &&
            s.replicas === o.pets &&
            s.readyReplicas === o.pets &&
            s.updatedReplicas === o.pets &&
            s.currentVersion === s.updateVersion
            ? true
            : undefined;
        },
        gone,
      );
    await api.createNamespacedCustomObject({ ...REF, body: manifest(o, "nginx:1") });
    await settled(1);
    const perPet: number[] = [];
    const wall: number[] = [];
    const start = await counters(port);
    const cpuStart = cpuSeconds(pid);
    for (let i = 0; i < o.rollouts; i++) {
      const before = cpuSeconds(pid);
      const started = performance.now();
      const patched = StatusSchema.parse(
        await api.patchNamespacedCustomObject({
          ...REF,
          name: NAME,
          body: [{ op: "replace", path: "/spec/template/spec/containers/0/image", value: `nginx:${i + 2}` }],
        }),
      );
      await settled(patched.metadata.generation ?? 0);
      wall.push((performance.now() - started) / 1000);
      const after = cpuSeconds(pid);
      const spent = after.user + after.system - before.user - before.system;
      perPet.push(Math.round((spent * 1000 * 10) / o.pets) / 10);
    }
    const end = await counters(port);
    const cpuEnd = cpuSeconds(pid);
    const counts = Object.fromEntries([
      ...COUNTED.map((n) => [n, Math.round(((end[n] - start[n]) * 100) / (o.rollouts * o.pets)) / 100]),
      // Seconds from the template change to every pet Ready at the new version (polled every 50 ms).
      ["wall_s", Math.round(mean(wall) * 100) / 100],
      // The kernel's share (socket writes on loopback also run the receiving side's TCP).
      ["system_ms", Math.round(((cpuEnd.system - cpuStart.system) * 1000 * 10) / (o.rollouts * o.pets)) / 10],
    ]);
    console.log(JSON.stringify({ side: name, bundle, flags, msPerPet: perPet, perPet: counts }));
    return { msPerPet: perPet, perPet: counts };
  } finally {
    for (const p of procs) p.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

async function main(): Promise<void> {
  const cmd = new Command("cpu-ab")
    .description("controller CPU per pet of builds or flag sets, alternated on one workload (hack/cpu-ab.ts)")
    .requiredOption(
      "--side <side...>",
      "a controller to measure, name=bundle[|node flags[|node binary]] (twice or more)",
    )
    .option("--pets <n>", "pets of the PetSet", "20")
    .option("--max-unavailable <n>", "rollingUpdate.maxUnavailable", "10")
    .option("--rollouts <n>", "rollouts per side run", "10")
    .option(
      "--pod-management <policy>",
      "podManagementPolicy: Parallel (as the comparison with kube-controller-manager) or OrderedReady",
      "Parallel",
    )
    .option("--alternations <n>", "times every side runs, in turn", "2")
    .parse();
  const o = Options.parse(cmd.opts());
  const all = new Map<string, number[]>();
  const counts = new Map<string, Record<string, number>[]>();
  for (let a = 0; a < o.alternations; a++)
    for (const side of o.side) {
      const name = side.split("=")[0] ?? side;
      const run = await runSide(side, o);
      all.set(name, [...(all.get(name) ?? []), ...run.msPerPet]);
      counts.set(name, [...(counts.get(name) ?? []), run.perPet]);
    }
  for (const [name, xs] of all) {
    const sorted = [...xs].sort((a, b) => a - b);
    const runs = counts.get(name) ?? [];
    const perPet = [...COUNTED, "system_ms"]
      .map((n) => `${n.replace(/^petset_|_total$/g, "")} ${mean(runs.map((r) => r[n] ?? 0)).toFixed(2)}`)
      .join(", ");
    console.log(
      `${name}: mean ${mean(xs).toFixed(1)} ms/pet, median ${sorted[Math.floor(sorted.length / 2)]}, ${xs.length} rollouts of ${o.pets} pets at maxUnavailable ${o.maxUnavailable}; per pet: ${perPet}`,
    );
  }
}

await main();
