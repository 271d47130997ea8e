#!/usr/bin/env node
/**
 * Growth curves for docs/benchmarks.md, drawn from the JSON records with ECharts'
 * server-side SVG renderer (no browser, no DOM): `node dist/bench/charts.js [results dir]
 * [out dir]` writes docs/img/versions-*.svg from bench/results/versions-*.json (the
 * per-round figures of the versions benchmark: cost as stored history grows).
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

/** One line chart: x = round (history so far), one line per record and metric. */
function lineChart(title: string, yName: string, lines: Array<{ name: string; data: number[][] }>): string {
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width: 720, height: 360 });
  chart.setOption({
    animation: false,
    title: { text: title, left: "center", textStyle: { fontSize: 14 } },
    legend: { bottom: 0 },
    grid: { left: 64, right: 24, top: 48, bottom: 64 },
    xAxis: {
      type: "value",
      name: "round (template changes per PetSet so far)",
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
if (series.length === 0) {
  process.stdout.write(`no versions records with per-round figures in ${resultsDir}\n`);
  process.exit(0);
}
mkdirSync(outDir, { recursive: true });
const perRound = (s: Series, key: string) => s.rounds.map((r) => [r.round ?? 0, r[key] ?? 0]);
const charts: Record<string, string> = {
  "versions-cpu-per-version.svg": lineChart(
    "CPU per version as history grows",
    "CPU ms per version",
    series.flatMap((s) => [
      { name: `controller (${s.name})`, data: perRound(s, "controllerCpuMsPerVersion") },
      { name: `API server (${s.name})`, data: perRound(s, "serverCpuMsPerVersion") },
    ]),
  ),
  "versions-throughput.svg": lineChart(
    "Versions per second per round (wall clock; shared machine)",
    "versions/s",
    series.map((s) => ({ name: s.name, data: perRound(s, "versionsPerSecond") })),
  ),
};
for (const [file, svg] of Object.entries(charts)) {
  writeFileSync(join(outDir, file), svg);
  process.stdout.write(`wrote ${join(outDir, file)}\n`);
}
