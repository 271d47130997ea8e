#!/usr/bin/env node
/**
 * `petset`: the controller, the embedded development cluster, and the demo.
 *
 * `dev` and `demo` are imported when their command runs: the controller process never loads
 * the embedded API server, and the controller's bundle (hack/bundle.ts) leaves them out.
 */
import { Command, Option } from "commander";
import { ControllerFlagsSchema, DevFlagsSchema, FlagError, parseFlags } from "../config.js";
import { LogLevels } from "../util/logger.js";
import { runController } from "./controller-command.js";
import { packageVersion } from "./package-version.js";

const program = new Command()
  .name("petset")
  .description(
    "A Kubernetes controller for stateful sets where every pod-shaping change is a numbered PetSetVersion.",
  )
  .version(packageVersion())
  .showHelpAfterError();

const logLevel = () => new Option("--log-level <level>", "log level").choices(LogLevels).default("info");

program
  .command("controller")
  .description("run the controller against a cluster (in-cluster config when no kubeconfig is given)")
  .option("--kubeconfig <path>", "kubeconfig file")
  .option("--context <name>", "kubeconfig context")
  .option("-n, --namespace <ns>", "watch only this namespace (default: all)")
  .option("--metrics-addr <addr>", "address of /metrics, /healthz, /readyz", ":8080")
  .option("--no-leader-elect", "do not elect a leader (run only one replica)")
  .option("--lease-namespace <ns>", "namespace of the leader-election Lease", "default")
  .option("--lease-name <name>", "name of the leader-election Lease", "petset-controller")
  .option("--lease-duration <s>", "seconds a leader's Lease is valid without renewal", "15")
  .option("--renew-deadline <s>", "seconds a leader keeps trying to renew before it steps down", "10")
  .option("--retry-period <s>", "seconds between Lease acquire/renew attempts", "2")
  .option("--workers <n>", "concurrent syncs", "8")
  .addOption(logLevel())
  .action(async (flags: Record<string, unknown>) => {
    await runController(parseFlags(ControllerFlagsSchema, flags));
  });

program
  .command("dev")
  .description("run the embedded API server, a simulated kubelet and the controller in one process")
  .option("--port <n>", "port of the API server (0: a free port chosen by the system)", "0")
  .option(
    "--listen <addr>",
    "address to bind; anything but loopback is served over TLS with a generated CA (in the kubeconfig)",
    "127.0.0.1",
  )
  .option(
    "--token-file <path>",
    "bearer tokens (one a line) instead of a random one; the first goes into the kubeconfig and alone may write and exec, the others only read",
  )
  .option(
    "--kubeconfig <path>",
    "where to write the kubeconfig (mode 0600: it holds the token)",
    ".petset/kubeconfig",
  )
  .option("--data-dir <dir>", "keep state here (survives restarts); default in memory")
  .option("--apply <path...>", "manifests (files or folders) to create once ready")
  .option("--no-controller", "do not run the controller")
  .option("--ready-delay-ms <ms>", "how long the simulated kubelet takes to make a pod Ready", "300")
  .option(
    "--event-ttl <seconds>",
    "Events are deleted this long after their last write (as kube-apiserver's --event-ttl)",
    "3600",
  )
  .option(
    "--node-monitor-grace-period <seconds>",
    "a node silent this long (no heartbeat or Lease renewal, e.g. labelled kubelet.petset.dev/lost=true) is marked Ready=Unknown and tainted unreachable (as kube-controller-manager's flag)",
    "50",
  )
  .addOption(logLevel())
  .action(async (flags: Record<string, unknown>) => {
    const parsed = parseFlags(DevFlagsSchema, flags);
    const { runDev } = await import("./dev-command.js");
    await runDev(parsed);
  });

program
  .command("demo")
  .description(
    "a scripted tour on the embedded API server: create, update, break and fix, history, diff, rollback, migrate a StatefulSet",
  )
  .option("--ready-delay-ms <ms>", "how long the simulated kubelet takes to make a pod Ready", "300")
  .option("--step-timeout <seconds>", "give up when a step takes longer than this", "30")
  .addOption(logLevel().default("error"))
  .action(async (flags: Record<string, unknown>) => {
    const { DemoFlagsSchema, runDemo } = await import("./demo-command.js");
    await runDemo(parseFlags(DemoFlagsSchema, flags));
    process.exit(0);
  });

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof FlagError) {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
