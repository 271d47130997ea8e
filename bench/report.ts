#!/usr/bin/env node
/**
 * Prints the tables of docs/benchmarks.md from bench/results/*.json:
 * `node dist/bench/report.js [dir]`. Keeps the document's numbers equal to the records.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO_ROOT } from "./support/processes.js";
import { type BenchRecord, readRecord } from "./support/results.js";
import type { Measurement } from "./support/stats.js";

type Row = [label: string, path: string];

const TABLES: Record<string, Row[]> = {
  apiserver: [
    ["creates/s, sequential", "createSequential.throughput"],
    ["create latency p50 / p99, sequential", "createSequential.latency.p50|createSequential.latency.p99"],
    ["creates/s, 8 concurrent", "createConcurrent.throughput"],
    ["create latency p50 / p99, 8 concurrent", "createConcurrent.latency.p50|createConcurrent.latency.p99"],
    ["server CPU per 1000 creates, 8 concurrent", "createConcurrent.serverCpuPer1000"],
    ["list: objects, response size", "list.items|list.responseSize"],
    ["list latency p50 / p99 (one request)", "list.fullList.p50|list.fullList.p99"],
    ["list latency p50 (pages of 500)", "list.pagedList500.p50"],
    [
      "watch: all 100 watchers saw a write, p50 / p99",
      "watchFanOut.untilAllWatchersSaw.p50|watchFanOut.untilAllWatchersSaw.p99",
    ],
    [
      "watch: first watcher saw it, p50 / p99",
      "watchFanOut.untilFirstWatcherSaw.p50|watchFanOut.untilFirstWatcherSaw.p99",
    ],
    [
      "server RSS idle / with objects / after watches",
      "memory.idle.apiServerRss|memory.afterCreatesAndLists.apiServerRss|memory.afterWatchFanOut.apiServerRss",
    ],
    ["etcd RSS with objects", "memory.afterCreatesAndLists.etcdRss"],
    ["server CPU, average over the run", "apiServerProcessDuringRun.cpuAverage"],
  ],
  versions: [
    [
      "PetSet created → v1 visible, p50 / p99",
      "versions.createToFirstVersion.p50|versions.createToFirstVersion.p99",
    ],
    [
      "template change → version visible, p50 / p99",
      "versions.changeToVersion.p50|versions.changeToVersion.p99",
    ],
    ["versions/s (whole phase)", "versions.versionThroughput"],
    ["controller API writes per version", "versions.controllerApiWrites.perVersion"],
    ["controller CPU (total, average)", "versions.controller.cpuTime|versions.controller.cpuAverage"],
    ["controller RSS end / peak", "versions.controller.rssEnd|versions.controller.rssPeak"],
    ["GC: excess versions, created at", "gc.excessVersions|gc.createVersionsThroughput"],
    ["GC: limit 10000 → 0, until collected", "gc.gcTime"],
    ["GC: deletes/s", "gc.gcDeletesPerSecond"],
    ["GC: controller CPU, RSS peak", "gc.controller.cpuTime|gc.controller.rssPeak"],
  ],
  rollout: [
    ["petset: create all pets (OrderedReady)", "petset.createWallTime"],
    ["petset: rollout wall time", "petset.rolloutWallTime"],
    ["petset: per pet", "petset.rolloutPerPet"],
    ["petset: API writes per pet update", "petset.apiWritesPerPetUpdate"],
    ["petset: controller CPU (total, average)", "petset.controller.cpuTime|petset.controller.cpuAverage"],
    ["petset: controller RSS peak", "petset.controller.rssPeak"],
    [
      "maxUnavailable 1, wall time: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable1.petset.wallTime.median|comparison.scenarios.maxUnavailable1.statefulset.wallTime.median",
    ],
    [
      "maxUnavailable 1, API writes per pet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable1.petset.writesPerPet.median|comparison.scenarios.maxUnavailable1.statefulset.writesPerPet.median",
    ],
    [
      "maxUnavailable 1, controller CPU per pet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable1.petset.cpuPerPet.median|comparison.scenarios.maxUnavailable1.statefulset.cpuPerPet.median",
    ],
    [
      "maxUnavailable 1, overhead per pet above kubelet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable1.petset.overheadPerPet.median|comparison.scenarios.maxUnavailable1.statefulset.overheadPerPet.median",
    ],
    [
      "maxUnavailable 1, ratio wall / writes / CPU",
      "comparison.scenarios.maxUnavailable1.ratio.wallTime|comparison.scenarios.maxUnavailable1.ratio.writesPerPet|comparison.scenarios.maxUnavailable1.ratio.cpuPerPet",
    ],
    [
      "maxUnavailable 10, wall time: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable10.petset.wallTime.median|comparison.scenarios.maxUnavailable10.statefulset.wallTime.median",
    ],
    [
      "maxUnavailable 10, API writes per pet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable10.petset.writesPerPet.median|comparison.scenarios.maxUnavailable10.statefulset.writesPerPet.median",
    ],
    [
      "maxUnavailable 10, controller CPU per pet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable10.petset.cpuPerPet.median|comparison.scenarios.maxUnavailable10.statefulset.cpuPerPet.median",
    ],
    [
      "maxUnavailable 10, overhead per pet above kubelet: petset / statefulset (medians)",
      "comparison.scenarios.maxUnavailable10.petset.overheadPerPet.median|comparison.scenarios.maxUnavailable10.statefulset.overheadPerPet.median",
    ],
    [
      "maxUnavailable 10, ratio wall / writes / CPU",
      "comparison.scenarios.maxUnavailable10.ratio.wallTime|comparison.scenarios.maxUnavailable10.ratio.writesPerPet|comparison.scenarios.maxUnavailable10.ratio.cpuPerPet",
    ],
  ],
};

function lookup(results: unknown, path: string): string {
  let cur: unknown = results;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object") return "–";
    cur = (cur as Record<string, unknown>)[key];
  }
  const v = cur as Measurement | undefined;
  if (!v || typeof v.value !== "number") return "–";
  const unit = v.unit === "objects" || v.unit === "versions" ? "" : ` ${v.unit}`;
  return `${v.value.toLocaleString("en-US")}${unit}`;
}

function cell(record: BenchRecord | undefined, spec: string): string {
  if (!record) return "–";
  const parts = spec.split("|").map((p) => lookup(record.results, p));
  return parts.every((p) => p === "–") ? "–" : parts.join(" / ");
}

const dir = resolve(REPO_ROOT, process.argv[2] ?? "bench/results");
for (const [name, rows] of Object.entries(TABLES)) {
  const load = (backend: string) => {
    const path = join(dir, `${name}-${backend}.json`);
    return existsSync(path) ? readRecord(path) : undefined;
  };
  const embedded = load("embedded");
  const real = load("real");
  process.stdout.write(`\n### ${name}\n\n| | embedded | real (kube-apiserver 1.33.5) |\n|---|---|---|\n`);
  for (const [label, spec] of rows) {
    process.stdout.write(`| ${label} | ${cell(embedded, spec)} | ${cell(real, spec)} |\n`);
  }
  for (const [backend, r] of [
    ["embedded", embedded],
    ["real", real],
  ] as const) {
    if (!r) continue;
    process.stdout.write(
      `\n${backend}: \`${r.command}\`, scale ${r.scale}, ${r.startedAt}, ${r.durationSeconds} s; loadavg ${r.machine.start.loadavg.join(" ")} → ${r.machine.loadavgEnd.join(" ")}; parameters ${JSON.stringify(r.parameters)}\n`,
    );
  }
}
