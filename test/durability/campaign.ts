/**
 * The durability campaign: `petset dev --data-dir` under concurrent write bursts, killed with
 * SIGKILL at a seeded random moment, restarted, and checked: every acknowledged write present
 * with its content (deleted ones absent), resourceVersions never going backwards, a watch from
 * the new list resuming. Every few kills the log's tail is damaged as a crash mid-append would
 * leave it (half a record, garbage bytes): startup must warn, naming file and offset, and keep
 * every complete record.
 */
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevProcess, startDev } from "./dev-process.js";
import {
  collectionPath,
  contentOf,
  NAMESPACE,
  type Random,
  seededRandom,
  writeBurst,
} from "./write-burst.js";
import { type Content, type Finding, type Kind, WriteModel } from "./write-model.js";

export interface CampaignOptions {
  kills: number;
  seed: number;
  /** Longest a burst runs before the kill (the moment is random in [minBurstMs, maxBurstMs]). */
  minBurstMs?: number;
  maxBurstMs?: number;
  workers?: number;
  objectsPerWorker?: number;
  /** Damage the log's tail before every n-th restart (0: never). */
  damageEvery?: number;
  controller?: boolean;
  progress?: (line: string) => void;
}

export interface CampaignResult {
  seed: number;
  kills: number;
  acknowledgedWrites: number;
  /** Writes with no answer when the server died: applied or not, both are allowed. */
  inFlightApplied: number;
  inFlightLost: number;
  tailsDamaged: number;
  tailWarnings: number;
  /** Longest restart (process start to ready) in ms. */
  maxRestartMs: number;
  findings: Finding[];
  durationMs: number;
}

type Damage = "half-record" | "garbage";

function damageTail(dataDir: string, kind: Damage, random: Random): boolean {
  const log = join(dataDir, "wal.jsonl");
  if (!existsSync(log)) return false;
  const bytes = readFileSync(log);
  if (kind === "half-record") {
    const end = bytes.lastIndexOf(0x0a, bytes.length - 2);
    const last = bytes.subarray(end + 1);
    if (last.length < 4) return false;
    appendFileSync(log, last.subarray(0, 1 + Math.floor(random() * (last.length - 2))));
  } else {
    const junk = Buffer.alloc(16 + Math.floor(random() * 512));
    for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(random() * 256);
    appendFileSync(log, junk);
  }
  return true;
}

async function listState(
  dev: DevProcess,
  kind: Kind,
): Promise<{ items: Map<string, { content: Content; rv: number }>; rv: number }> {
  const res = await dev.fetch(`${dev.url}${collectionPath(kind)}`);
  if (res.status !== 200) throw new Error(`list ${kind}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as {
    metadata: { resourceVersion: string };
    items: { metadata: { name: string; resourceVersion: string } }[];
  };
  const items = new Map<string, { content: Content; rv: number }>();
  for (const o of body.items)
    if (o.metadata.name.startsWith("dur-"))
      items.set(`${kind}/${o.metadata.name}`, {
        content: contentOf(kind, o),
        rv: Number(o.metadata.resourceVersion),
      });
  return { items, rv: Number(body.metadata.resourceVersion) };
}

/** A watch from `rv` sees a write made after it: watches resume on the restarted server. */
async function watchResumes(dev: DevProcess, rv: number, cycle: number): Promise<string | undefined> {
  const abort = new AbortController();
  const name = `probe-${cycle}`;
  const res = await dev.fetch(
    `${dev.url}/api/v1/namespaces/${NAMESPACE}/configmaps?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3D${name}`,
    { signal: abort.signal },
  );
  const reader = res.body!.getReader();
  const create = await dev.fetch(`${dev.url}/api/v1/namespaces/${NAMESPACE}/configmaps`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ metadata: { name }, data: { cycle: String(cycle) } }),
  });
  const created = (await create.json()) as { metadata?: { resourceVersion?: string } };
  if (create.status !== 201) return `probe create answered ${create.status}`;
  const probeRv = Number(created.metadata?.resourceVersion);
  const timer = setTimeout(() => abort.abort(), 15_000);
  let text = "";
  try {
    while (!text.includes(`"name":"${name}"`)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += Buffer.from(chunk.value).toString();
    }
  } catch {
    // aborted: judged below
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  if (!text.includes('"type":"ADDED"'))
    return `a watch from resourceVersion ${rv} did not see ${name} within 15 s: ${text.slice(0, 200)}`;
  await dev.fetch(`${dev.url}/api/v1/namespaces/${NAMESPACE}/configmaps/${name}`, { method: "DELETE" });
  return probeRv > rv
    ? undefined
    : `the first write after restart got resourceVersion ${probeRv}, not above ${rv}`;
}

export async function runCampaign(opts: CampaignOptions): Promise<CampaignResult> {
  const started = Date.now();
  const random = seededRandom(opts.seed);
  const dir = mkdtempSync(join(tmpdir(), "petset-durability-"));
  const dataDir = join(dir, "data");
  const kubeconfig = join(dir, "kubeconfig");
  const model = new WriteModel();
  const findings: Finding[] = [];
  const say = opts.progress ?? (() => {});
  const result: CampaignResult = {
    seed: opts.seed,
    kills: 0,
    acknowledgedWrites: 0,
    inFlightApplied: 0,
    inFlightLost: 0,
    tailsDamaged: 0,
    tailWarnings: 0,
    maxRestartMs: 0,
    findings,
    durationMs: 0,
  };
  const start = async () => {
    const t = Date.now();
    const dev = await startDev({ dataDir, kubeconfig, controller: opts.controller ?? true });
    result.maxRestartMs = Math.max(result.maxRestartMs, Date.now() - t);
    return dev;
  };
  let dev = await start();
  try {
    for (let cycle = 1; cycle <= opts.kills; cycle++) {
      let stop = false;
      const burst = writeBurst({
        url: dev.url,
        fetch: dev.fetch,
        model,
        random,
        workers: opts.workers ?? 6,
        objectsPerWorker: opts.objectsPerWorker ?? 6,
        cycle,
        stopped: () => stop,
        onUnexpected: (message) => findings.push({ cycle, message }),
      });
      const min = opts.minBurstMs ?? 200;
      const at = min + Math.floor(random() * ((opts.maxBurstMs ?? 2000) - min));
      await new Promise((r) => setTimeout(r, at));
      await dev.kill();
      stop = true;
      await burst;
      result.kills++;
      let damaged: Damage | undefined;
      if (opts.damageEvery && cycle % opts.damageEvery === 0) {
        damaged = cycle % (2 * opts.damageEvery) === 0 ? "garbage" : "half-record";
        if (damageTail(dataDir, damaged, random)) result.tailsDamaged++;
        else damaged = undefined;
      }
      dev = await start();
      if (damaged) {
        if (/wal\.jsonl: cut \d+ byte\(s\) at byte offset \d+/.test(dev.log())) result.tailWarnings++;
        else
          findings.push({
            cycle,
            message: `the log's tail was damaged (${damaged}) but startup gave no warning naming the file and offset`,
          });
      }
      const seen = new Map<string, { content: Content; rv: number }>();
      let listRv = 0;
      for (const kind of ["configmap", "petset"] as const) {
        const l = await listState(dev, kind);
        for (const [k, v] of l.items) seen.set(k, v);
        listRv = Math.max(listRv, l.rv);
      }
      const behind = model.listBehind(cycle, listRv);
      if (behind) findings.push(behind);
      const checked = model.verify(cycle, seen);
      findings.push(...checked.findings);
      result.inFlightApplied += checked.inFlightApplied;
      result.inFlightLost += checked.inFlightLost;
      const watchProblem = await watchResumes(dev, listRv, cycle);
      if (watchProblem) findings.push({ cycle, message: watchProblem });
      say(
        `kill ${cycle}/${opts.kills} after ${at} ms: ${model.acknowledged} acknowledged so far, ${seen.size} objects checked${damaged ? `, tail damaged (${damaged})` : ""}, findings ${findings.length}`,
      );
    }
  } finally {
    await dev.kill();
    rmSync(dir, { recursive: true, force: true });
  }
  result.acknowledgedWrites = model.acknowledged;
  result.durationMs = Date.now() - started;
  return result;
}
