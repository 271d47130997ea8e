/**
 * The soak: `petset dev --no-controller` (API server + simulated kubelet) and `petset
 * controller` as two processes, N PetSets under seeded random changes (image, scale, pause)
 * for M minutes, invariant monitors on a sample of them, and every `sampleSeconds` the RSS and
 * open fds of both processes (from /proc) and the open watches (the server's /metrics).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadKubeConfig } from "../../src/util/kubeconfig.js";
import { startDev } from "../durability/dev-process.js";
import { seededRandom } from "../durability/write-burst.js";
import { REPO_ROOT } from "../support/cluster.js";
import {
  type InvariantMonitor,
  startInvariantMonitor,
  type Violation,
} from "../support/invariant-monitor.js";
import { type SeriesSummary, sampleProcess, summarize } from "./process-sampler.js";
import { type ObservedPetSet, petSetGap } from "./soak-verdict.js";

export interface SoakOptions {
  minutes: number;
  petSets: number;
  seed: number;
  monitored: number;
  sampleSeconds: number;
  /** Pause between two random changes. */
  changeEveryMs: number;
  /** `petset dev --event-ttl`: short enough that Events reach their steady count within the run. */
  eventTtlSeconds: number;
  /** After the last change every PetSet must converge within this (default 300 s). */
  convergeSeconds?: number;
  progress?: (line: string) => void;
}

export interface SoakResult {
  options: SoakOptions;
  changes: number;
  changeErrors: string[];
  violations: Violation[];
  crashed: string[];
  /** PetSets not converged `convergeSeconds` after the changes stopped (paused ones resumed). */
  notConverged: string[];
  samples: {
    t: number;
    server: { rssKiB: number; fds: number };
    controller: { rssKiB: number; fds: number };
    watches: number;
    /** Stored objects per resource (the server's apiserver_storage_objects). */
    stored: Record<string, number>;
  }[];
  summary: Record<string, SeriesSummary>;
}

const NS = "soak";
const CLI = join(REPO_ROOT, "dist", "src", "cli", "petset.js");

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function petSet(name: string, replicas: number, tag: string): unknown {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: "app", image: `registry.local/app:${tag}` }] },
      },
    },
  };
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const say = o.progress ?? (() => {});
  const random = seededRandom(o.seed);
  const dir = mkdtempSync(join(tmpdir(), "petset-soak-"));
  const kubeconfig = join(dir, "kubeconfig");
  const dev = await startDev({
    dataDir: join(dir, "data"),
    kubeconfig,
    controller: false,
    extraArgs: ["--log-level", "warn", "--event-ttl", String(o.eventTtlSeconds)],
  });
  const metricsPort = await freePort();
  const crashed: string[] = [];
  const controller: ChildProcess = spawn(
    process.execPath,
    [
      CLI,
      "controller",
      "--kubeconfig",
      kubeconfig,
      "-n",
      NS,
      "--metrics-addr",
      `127.0.0.1:${metricsPort}`,
      "--lease-namespace",
      NS,
      // Generous lease timing: on a loaded shared machine a 10 s renew deadline was missed
      // and the controller stepped down and exited (by design) within the first minute.
      "--lease-duration",
      "60",
      "--renew-deadline",
      "45",
      "--retry-period",
      "5",
      "--log-level",
      "warn",
    ],
    { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );
  const stopController = () => controller.kill("SIGKILL");
  process.once("exit", stopController);
  let ending = false;
  controller.once("exit", (code, sig) => {
    if (!ending) crashed.push(`controller exited (${code ?? sig})`);
  });
  dev.child.once("exit", (code, sig) => {
    if (!ending) crashed.push(`petset dev exited (${code ?? sig})`);
  });
  const api = (path: string, init?: Parameters<typeof dev.fetch>[1]) => dev.fetch(`${dev.url}${path}`, init);
  const json = { "Content-Type": "application/json" };
  await api("/api/v1/namespaces", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ metadata: { name: NS } }),
  });
  const psPath = `/apis/petset.dev/v1alpha1/namespaces/${NS}/petsets`;
  const names = Array.from({ length: o.petSets }, (_, i) => `soak-${i}`);
  const paused = new Set<string>();
  for (const name of names) {
    const res = await api(psPath, {
      method: "POST",
      headers: json,
      body: JSON.stringify(petSet(name, 1 + Math.floor(random() * 2), "v0")),
    });
    if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${await res.text()}`);
  }
  const kc = loadKubeConfig({ kubeconfig });
  const monitors: InvariantMonitor[] = [];
  for (const name of names.slice(0, o.monitored))
    monitors.push(await startInvariantMonitor({ kubeConfig: kc, namespace: NS, petSet: name }));
  say(`soak: ${o.petSets} PetSets created, ${monitors.length} monitored, ${o.minutes} min`);

  const result: SoakResult = {
    options: o,
    changes: 0,
    changeErrors: [],
    violations: [],
    crashed,
    notConverged: [],
    samples: [],
    summary: {},
  };
  const started = Date.now();
  const deadline = started + o.minutes * 60_000;
  const metrics = async (): Promise<{ watches: number; stored: Record<string, number> }> => {
    const text = await (await api("/metrics")).text();
    let watches = 0;
    for (const m of text.matchAll(/^apiserver_longrunning_requests\{[^}]*verb="WATCH"[^}]*\} (\d+)$/gm))
      watches += Number(m[1]);
    const stored: Record<string, number> = {};
    for (const m of text.matchAll(/^apiserver_storage_objects\{resource="([^"]+)"\} (\d+)$/gm))
      stored[m[1]!] = Number(m[2]);
    return { watches, stored };
  };
  const sample = async () => {
    const server = sampleProcess(dev.pid);
    const ctl = sampleProcess(controller.pid!);
    if (!server || !ctl) return;
    result.samples.push({ t: Date.now() - started, server, controller: ctl, ...(await metrics()) });
  };
  await sample();
  let nextSample = Date.now() + o.sampleSeconds * 1000;
  let tag = 0;
  while (Date.now() < deadline && crashed.length === 0) {
    const name = names[Math.floor(random() * names.length)]!;
    const r = random();
    let patch: unknown;
    if (r < 0.6)
      patch = {
        spec: {
          template: { spec: { containers: [{ name: "app", image: `registry.local/app:v${++tag}` }] } },
        },
      };
    else if (r < 0.85) patch = { spec: { replicas: Math.floor(random() * 4) } };
    else {
      const pause = !paused.has(name);
      if (pause) paused.add(name);
      else paused.delete(name);
      patch = { spec: { paused: pause } };
    }
    const res = await api(`${psPath}/${name}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify(patch),
    }).catch((err: unknown) => ({ status: 0, text: async () => String(err) }));
    result.changes++;
    if (res.status !== 200 && result.changeErrors.length < 50)
      result.changeErrors.push(`${name}: ${res.status} ${(await res.text()).slice(0, 200)}`);
    if (Date.now() >= nextSample) {
      await sample();
      nextSample += o.sampleSeconds * 1000;
      const s = result.samples.at(-1);
      if (s)
        say(
          `soak: ${Math.round(s.t / 1000)} s, ${result.changes} changes, server ${s.server.rssKiB} KiB ${s.server.fds} fds, controller ${s.controller.rssKiB} KiB ${s.controller.fds} fds, ${s.watches} watches, ${s.stored.events ?? 0} events, ${s.stored.pods ?? 0} pods, ${s.stored["petsetversions.petset.dev"] ?? 0} versions`,
        );
    }
    await new Promise((r2) => setTimeout(r2, o.changeEveryMs));
  }
  await sample();
  if (crashed.length === 0) result.notConverged = await converge();
  for (const m of monitors) result.violations.push(...(await m.stop()));
  ending = true;
  // Slopes after a 20% warm-up.
  const trend = (pick: (s: SoakResult["samples"][number]) => number) =>
    summarize(
      result.samples.map((s) => ({ t: s.t, y: pick(s) })),
      0.2,
    );
  result.summary = {
    serverRssKiB: trend((s) => s.server.rssKiB),
    serverFds: trend((s) => s.server.fds),
    controllerRssKiB: trend((s) => s.controller.rssKiB),
    controllerFds: trend((s) => s.controller.fds),
    watches: trend((s) => s.watches),
    storedEvents: trend((s) => s.stored.events ?? 0),
    storedPods: trend((s) => s.stored.pods ?? 0),
    storedVersions: trend((s) => s.stored["petsetversions.petset.dev"] ?? 0),
  };
  stopController();
  process.removeListener("exit", stopController);
  await dev.kill();
  rmSync(dir, { recursive: true, force: true });
  return result;

  /** Resumes the paused PetSets, then waits until every one converged; what is still off. */
  async function converge(): Promise<string[]> {
    for (const name of paused)
      await api(`${psPath}/${name}`, {
        method: "PATCH",
        headers: { "Content-Type": "application/merge-patch+json" },
        body: JSON.stringify({ spec: { paused: false } }),
      });
    const until = Date.now() + (o.convergeSeconds ?? 300) * 1000;
    for (;;) {
      const res = await api(psPath).catch(() => undefined);
      const items = res?.status === 200 ? ((await res.json()) as { items: ObservedPetSet[] }).items : [];
      const gaps = items.map(petSetGap).filter((g): g is string => g !== undefined);
      if (items.length === o.petSets && gaps.length === 0) return [];
      if (Date.now() >= until)
        return [
          ...(items.length !== o.petSets ? [`${items.length} of ${o.petSets} PetSets listed`] : []),
          ...gaps,
        ];
      await new Promise((r2) => setTimeout(r2, 1000));
    }
  }
}
