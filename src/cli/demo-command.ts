/**
 * `petset demo`: a scripted tour on the embedded default. Starts what `petset dev` starts
 * (API server, simulated kubelet, controller) with a throwaway kubeconfig, runs the tour in
 * src/cli/demo/, prints what happens, stops everything and removes its files.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { CommonFlagsSchema, DevFlagsSchema, integerFlag } from "../config.js";
import { type Clock, systemClock } from "../util/clock.js";
import { loadKubeConfig } from "../util/kubeconfig.js";
import { LogLevels } from "../util/logger.js";
import { DemoCluster } from "./demo/demo-cluster.js";
import { Narrator } from "./demo/narrator.js";
import { DEMO_STEPS, runDemoScript } from "./demo/script.js";
import { startDev } from "./dev-command.js";
import type { Output } from "./plugin/context.js";
import { kubePetSetApi } from "./plugin/kube-petset-api.js";
import { connect } from "./plugin/kubeconfig.js";
import { runPlugin } from "./plugin/program.js";

export const DemoFlagsSchema = CommonFlagsSchema.extend({
  logLevel: z.enum(LogLevels).default("error"),
  readyDelayMs: integerFlag("a whole number of milliseconds, 0 or more", 0).default(300),
  stepTimeout: integerFlag("a whole number of seconds, at least 1", 1).default(30),
});
export type DemoConfig = z.infer<typeof DemoFlagsSchema>;

export interface DemoIO {
  readonly stdout: Output;
  readonly stderr: Output;
  readonly clock: Clock;
}

/** Runs the tour; resolves once everything it started is stopped, rejects if a step fails. */
export async function runDemo(config: DemoConfig, io: DemoIO = processIO()): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "petset-demo-"));
  const narrator = new Narrator(io.stdout, DEMO_STEPS, io.clock);
  narrator.say("petset demo: a tour of PetSets on the embedded API server (no cluster needed).");
  narrator.say("Starting the API server, a simulated kubelet and the controller (what `petset dev` runs)...");
  const dev = await startDev(
    DevFlagsSchema.parse({
      port: 0,
      kubeconfig: join(dir, "kubeconfig"),
      readyDelayMs: config.readyDelayMs,
      logLevel: config.logLevel,
    }),
  );
  narrator.say(`API server ${dev.url}, ready in ${narrator.elapsed()}.`);
  const cluster = new DemoCluster(
    dev.kubeconfigPath,
    loadKubeConfig({ kubeconfig: dev.kubeconfigPath }),
    "default",
    (line) => narrator.observe(line),
  );
  try {
    await runDemoScript({
      narrator,
      cluster,
      stepTimeoutMs: config.stepTimeout * 1000,
      plugin: (args) =>
        runPlugin(args, {
          // Progress lines (adopt, release) are part of the story: both streams go to the narrator.
          io: { stdout: narrator.indented(), stderr: narrator.indented(), noColor: "1" },
          clock: io.clock,
          connect: (flags) => kubePetSetApi(connect(flags)),
        }),
    });
    narrator.say(`\nDone in ${narrator.elapsed()}.`);
  } finally {
    cluster.stop();
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

function processIO(): DemoIO {
  return {
    stdout: { write: (s) => process.stdout.write(s), isTTY: process.stdout.isTTY === true },
    stderr: { write: (s) => process.stderr.write(s), isTTY: process.stderr.isTTY === true },
    clock: systemClock,
  };
}
