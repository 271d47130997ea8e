/**
 * Where a controller's CPU went: a V8 CPU profile (`node --cpu-prof`, the benchmark's
 * `--controller-cpu-prof DIR`) summed by function, self and inclusive, mapped through the
 * bundle's source map to the TypeScript function and line, optionally only within the
 * benchmark's measured windows (bench/support/profile-windows.ts) and only below one function.
 *
 *   node dist/hack/cpu-profile.js DIR/CPU.*.cpuprofile --map dist/src/cli/petset.bundle.js.map \
 *     --windows DIR/windows.txt [--under planRollout] [--top 40]
 *
 * Times are the profile's samples (wall-clock intervals while the thread ran JavaScript, GC or
 * a system call), not the CPU the kernel counted: use them for shares, the benchmark for totals.
 */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { SourceMapConsumer } from "source-map-js";
import { z } from "zod";
import { parseWindows, type Window } from "../bench/support/profile-windows.js";

const ProfileSchema = z.object({
  nodes: z.array(
    z.object({
      id: z.number(),
      callFrame: z.object({
        functionName: z.string(),
        url: z.string(),
        lineNumber: z.number(),
        columnNumber: z.number(),
      }),
      children: z.array(z.number()).optional(),
    }),
  ),
  startTime: z.number(),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});
export type CpuProfile = z.infer<typeof ProfileSchema>;
type CallFrame = CpuProfile["nodes"][number]["callFrame"];

export interface ProfileSummary {
  /** Microseconds of non-idle samples counted (in the windows, below `under`). */
  totalUs: number;
  idleUs: number;
  /** Per function name: microseconds in it (self) and in it or below (inclusive). */
  self: Map<string, number>;
  inclusive: Map<string, number>;
}

/**
 * Sums `profile`'s samples by `nameOf(frame)`: only those within `windows` (all when none), and
 * with `under`, only stacks holding a frame whose name starts with `under ` (or is `under`),
 * counting that frame and what lies below it.
 */
export function summarize(
  profile: CpuProfile,
  nameOf: (frame: CallFrame) => string,
  opts: { windows?: readonly Window[]; under?: string } = {},
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const timePerNode = new Map<number, number>();
  let t = profile.startTime;
  for (const [i, id] of profile.samples.entries()) {
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (opts.windows !== undefined && !opts.windows.some(([a, b]) => t >= a && t <= b)) continue;
    timePerNode.set(id, (timePerNode.get(id) ?? 0) + dt);
  }
  const names = new Map<number, string>();
  const name = (id: number) => {
    let n = names.get(id);
    if (n === undefined) {
      const node = byId.get(id);
      n = node === undefined ? "?" : nameOf(node.callFrame);
      names.set(id, n);
    }
    return n;
  };
  const out: ProfileSummary = { totalUs: 0, idleUs: 0, self: new Map(), inclusive: new Map() };
  for (const [id, us] of timePerNode) {
    if (byId.get(id)?.callFrame.functionName === "(idle)") {
      out.idleUs += us;
      continue;
    }
    const stack: string[] = [];
    for (let x: number | undefined = id; x !== undefined; x = parent.get(x)) stack.push(name(x));
    let counted = stack;
    if (opts.under !== undefined) {
      const u = opts.under;
      const at = stack.findIndex((s) => s === u || s.startsWith(`${u} `));
      if (at < 0) continue;
      counted = stack.slice(0, at + 1);
    }
    out.totalUs += us;
    const leaf = counted[0] ?? "?";
    out.self.set(leaf, (out.self.get(leaf) ?? 0) + us);
    for (const s of new Set(counted)) out.inclusive.set(s, (out.inclusive.get(s) ?? 0) + us);
  }
  return out;
}

/** Frame names: `function file:line`, through `map` for frames of the bundle it maps. */
function frameNamer(mapFile: string | undefined): (frame: CallFrame) => string {
  const consumer =
    mapFile === undefined ? undefined : new SourceMapConsumer(JSON.parse(readFileSync(mapFile, "utf8")));
  return (f) => {
    if (consumer !== undefined && f.url.endsWith(".bundle.js")) {
      const o = consumer.originalPositionFor({ line: f.lineNumber + 1, column: f.columnNumber });
      const source = (o.source ?? "?").replace(/^.*node_modules\//, "").replace(/^(\.\.\/)+/, "");
      return `${o.name ?? f.functionName ?? "(anonymous)"} ${source}:${o.line ?? "?"}`;
    }
    const file = f.url.split("/").slice(-2).join("/");
    return `${f.functionName || "(anonymous)"} ${file}`.trim();
  };
}

function print(title: string, m: Map<string, number>, totalUs: number, top: number): void {
  process.stdout.write(`== ${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(
      `${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / totalUs).toFixed(1).padStart(5)}%  ${k}\n`,
    );
}

function main(argv: string[]): void {
  // Piped into `head`: a closed pipe ends the report, not with a stack trace.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  const cmd = new Command("cpu-profile")
    .description("where a CPU profile's time went, by function (see hack/cpu-profile.ts)")
    .argument("<profile>", "a .cpuprofile file")
    .option("--map <file>", "the bundle's source map (dist/src/cli/petset.bundle.js.map)")
    .option("--windows <file>", "only samples inside these windows (the benchmark's windows.txt)")
    .option("--label <text>", "only the windows with this label or its first words", "")
    .option("--under <function>", "only stacks through this function, counted from it down")
    .option("--top <n>", "rows per table", "40")
    .parse(argv);
  const flags = z
    .object({
      map: z.string().optional(),
      windows: z.string().optional(),
      label: z.string(),
      under: z.string().optional(),
      top: z.coerce.number().int().positive(),
    })
    .parse(cmd.opts());
  const profile = ProfileSchema.parse(JSON.parse(readFileSync(cmd.args[0] ?? "", "utf8")));
  const windows =
    flags.windows === undefined ? undefined : parseWindows(readFileSync(flags.windows, "utf8"), flags.label);
  const s = summarize(profile, frameNamer(flags.map), {
    ...(windows !== undefined ? { windows } : {}),
    ...(flags.under !== undefined ? { under: flags.under } : {}),
  });
  // Idle samples are nobody's callee: reported only for the whole stack.
  const idle = flags.under === undefined ? `, ${(s.idleUs / 1000).toFixed(0)} ms idle` : "";
  process.stdout.write(
    `${windows === undefined ? "whole profile" : `${windows.length} windows`}${flags.under ? `, below ${flags.under}` : ""}: ` +
      `${(s.totalUs / 1000).toFixed(0)} ms non-idle${idle}\n`,
  );
  print("self", s.self, s.totalUs, flags.top);
  print("inclusive", s.inclusive, s.totalUs, flags.top);
}

if (process.argv[1]?.endsWith("cpu-profile.js")) main(process.argv);
