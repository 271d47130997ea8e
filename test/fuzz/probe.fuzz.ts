import { it } from "vitest";
import { startTestCluster } from "../support/cluster.js";
import { hostileCases } from "./hostile-petsets.js";
import { createThroughKubectl } from "./kubectl-batch.js";

it("probe", async () => {
  const cases = hostileCases(Number(process.env.FUZZ_SEED ?? 1), Number(process.env.FUZZ_RUNS ?? 100));
  const emb = await startTestCluster("embedded");
  const real = await startTestCluster("real");
  const t0 = Date.now();
  const a = await createThroughKubectl(emb, await emb.namespace("fz"), cases);
  const t1 = Date.now();
  const b = await createThroughKubectl(real, await real.namespace("fz"), cases);
  console.log("times", t1 - t0, Date.now() - t1);
  const lines: string[] = [];
  for (const c of cases) {
    const x = a.get(c.id); const y = b.get(c.id);
    const kx = x?.kind === "rejected" ? `${x.code} ${x.reason}` : x?.kind;
    const ky = y?.kind === "rejected" ? `${y.code} ${y.reason}` : y?.kind;
    const mark = kx === ky ? "  " : "!!";
    lines.push(`${mark} ${c.id} ${c.category} ${c.fields[0]} E=${kx} R=${ky}\n     E: ${x && "message" in x ? x.message.slice(0, 300) : ""}\n     R: ${y && "message" in y ? y.message.slice(0, 300) : ""}`);
  }
  (await import("node:fs")).writeFileSync("/tmp/fuzz-probe.txt", lines.join("\n"));
  await emb.stop(); await real.stop();
}, 600_000);
