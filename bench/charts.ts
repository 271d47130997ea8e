#!/usr/bin/env node
/**
 * Growth curves for docs/benchmarks.md, drawn from the JSON records with ECharts'
 * server-side SVG renderer (no browser, no DOM): `node dist/bench/charts.js [results dir]
 * [out dir]` writes docs/img/versions-*.svg from bench/results/versions-*.json (the
 * per-round figures of the versions benchmark: cost as stored history grows) and
 * docs/img/scale-*.svg from bench/results/scale-*.json (cold start, RSS and populate rate
 * against the number of PetSets, one line per backend and commit: records of different
 * builds are not one curve).
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as echarts from "echarts";
import { REPO_ROOT } from "./support/processes.js";
import { readRecord } from "./support/results.js";

type Round = Record<string, number>;
interface Series {
  readonly name: string;
  readonly rounds: readonly Round[];
}

const resultsDir = resolve(REPO_ROOT, process.argv[2] ?? "bench/results");
const outDir = resolve(REPO_ROOT, process.argv[3] ?? "docs/img");

function versionSeries(): Series[] {
  const out: Series[] = [];
  for (const file of readdirSync(resultsDir)
    .filter((f) => /^versions-.*\.json$/.test(f))
    .sort()) {
    const record = readRecord(join(resultsDir, file));
    const rounds = (record.results as { versions?: { rounds?: Round[] } }).versions?.rounds;
    const petSets = (record.parameters as { petSets?: number }).petSets;
    if (rounds?.length) out.push({ name: `${record.backend}, ${petSets} PetSets`, rounds });
  }
  return out;
}

interface ScalePoint {
  readonly line: string;
  readonly petSets: number;
  readonly coldStartSeconds: number;
  readonly rssMiB: number;
  readonly podsPerSecond: number;
  /** Changes among the idle PetSets (records since 2026-12-02); undefined before. */
  readonly singleChangeP50Ms?: number;
  readonly singleChangeP99Ms?: number;
  readonly burstVersionsPerSecond?: number;
}

type Measure = { value?: number } | undefined;

function scalePoints(): ScalePoint[] {
  const out: ScalePoint[] = [];
  for (const file of readdirSync(resultsDir).filter((f) => /^scale-.*\.json$/.test(f))) {
    const record = readRecord(join(resultsDir, file));
    if (record.commit === undefined) continue;
    const p = record.parameters as { petSets?: number; petsPerPetSet?: number };
    const r = record.results as {
      coldStart?: { allSynced?: Measure; controllerRss?: Measure };
      populate?: { seconds?: Measure };
      changes?: {
        single?: { latency?: { p50?: Measure; p99?: Measure } };
        burst?: { versionsPerSecond?: Measure };
      };
    };
    const populate = r.populate?.seconds?.value;
    out.push({
      line: `${record.backend} @ ${record.commit}`,
      petSets: p.petSets ?? 0,
      coldStartSeconds: r.coldStart?.allSynced?.value ?? 0,
      rssMiB: r.coldStart?.controllerRss?.value ?? 0,
      podsPerSecond: populate ? ((p.petSets ?? 0) * (p.petsPerPetSet ?? 0)) / populate : 0,
      singleChangeP50Ms: r.changes?.single?.latency?.p50?.value,
      singleChangeP99Ms: r.changes?.single?.latency?.p99?.value,
      burstVersionsPerSecond: r.changes?.burst?.versionsPerSecond?.value,
    });
  }
  return out.sort((a, b) => a.petSets - b.petSets);
}

type ScaleKey = Exclude<keyof ScalePoint, "line" | "petSets">;

/** One line per backend and build; points without the figure (older records) are left out. */
function scaleLines(points: readonly ScalePoint[], key: ScaleKey, suffix = "") {
  const lines = [...new Set(points.filter((p) => p[key] !== undefined).map((p) => p.line))];
  return lines.map((line) => ({
    name: `${line}${suffix}`,
    data: points
      .filter((p) => p.line === line && p[key] !== undefined)
      .map((p) => [p.petSets, Number((p[key] ?? 0).toFixed(2))]),
  }));
}

const ROUND_AXIS = "round (template changes per PetSet so far)";

/** One line chart: x = `xName` (a round, or PetSets), one line per record and metric. */
function lineChart(
  title: string,
  yName: string,
  lines: Array<{ name: string; data: number[][] }>,
  xName = ROUND_AXIS,
): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width: 720, height: 360 });
  chart.setOption({
    animation: false,
    title: { text: title, left: "center", textStyle: { fontSize: 14 } },
    legend: { bottom: 0 },
    grid: { left: 64, right: 24, top: 48, bottom: 64 },
    xAxis: {
      type: "value",
      name: xName,
      nameLocation: "middle",
      nameGap: 28,
      minInterval: 1,
    },
    yAxis: { type: "value", name: yName, min: 0 },
    series: lines.map((l) => ({ type: "line", name: l.name, data: l.data, symbolSize: 6 })),
  });
  const svg = chart.renderToSVGString();
  chart.dispose();
  return svg;
}

const series = versionSeries();
const points = scalePoints();
mkdirSync(outDir, { recursive: true });
const perRound = (s: Series, key: string) => s.rounds.map((r) => [r.round ?? 0, r[key] ?? 0]);
const charts: Record<string, string> = {};
if (series.length > 0) {
  charts["versions-cpu-per-version.svg"] = lineChart(
    "CPU per version as history grows",
    "CPU ms per version",
    series.flatMap((s) => [
      { name: `controller (${s.name})`, data: perRound(s, "controllerCpuMsPerVersion") },
      { name: `API server (${s.name})`, data: perRound(s, "serverCpuMsPerVersion") },
    ]),
  );
  charts["versions-throughput.svg"] = lineChart(
    "Versions per second per round (wall clock; shared machine)",
    "versions/s",
    series.map((s) => ({ name: s.name, data: perRound(s, "versionsPerSecond") })),
  );
}
if (points.length > 0) {
  const petSetsAxis = "PetSets (3 pets each)";
  charts["scale-cold-start.svg"] = lineChart(
    "Cold start: controller start to every PetSet synced once",
    "seconds",
    scaleLines(points, "coldStartSeconds"),
    petSetsAxis,
  );
  charts["scale-rss.svg"] = lineChart(
    "Controller RSS after the cold start",
    "MiB",
    scaleLines(points, "rssMiB"),
    petSetsAxis,
  );
  charts["scale-populate.svg"] = lineChart(
    "Populate: pods created and Ready per second (controller + API server + kubelet)",
    "pods/s",
    scaleLines(points, "podsPerSecond"),
    petSetsAxis,
  );
  if (points.some((p) => p.singleChangeP50Ms !== undefined)) {
    charts["scale-change-latency.svg"] = lineChart(
      "One change among the idle PetSets: write to version visible",
      "ms",
      [
        ...scaleLines(points, "singleChangeP50Ms", ", p50"),
        ...scaleLines(points, "singleChangeP99Ms", ", p99"),
      ],
      petSetsAxis,
    );
    charts["scale-burst-versions.svg"] = lineChart(
      "A burst of 300 changes among them (8 in flight): versions per second",
      "versions/s",
      scaleLines(points, "burstVersionsPerSecond"),
      petSetsAxis,
    );
  }
}
if (Object.keys(charts).length === 0) {
  process.stdout.write(`no versions or scale records with the figures to draw in ${resultsDir}\n`);
  process.exit(0);
}
for (const [file, svg] of Object.entries(charts)) {
  writeFileSync(join(outDir, file), svg);
  process.stdout.write(`wrote ${join(outDir, file)}\n`);
}
