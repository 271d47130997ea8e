#!/usr/bin/env node
/**
 * `kubectl-petset`: the kubectl plugin (`kubectl petset ...` once this is on PATH). Wires
 * the real terminal, clock and API into the plugin and turns its result into an exit code.
 */
import { systemClock } from "../util/clock.js";
import { runPlugin } from "./plugin/program.js";

// `kubectl petset history web | head`: a reader that stops early is not an error.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code === "EPIPE") process.exit(0);
  throw err;
});

const exitCode = await runPlugin(process.argv.slice(2), {
  io: {
    stdout: {
      write: (s) => process.stdout.write(s),
      isTTY: process.stdout.isTTY === true,
      get columns() {
        return process.stdout.columns;
      },
    },
    stderr: { write: (s) => process.stderr.write(s), isTTY: process.stderr.isTTY === true },
    noColor: process.env.NO_COLOR,
  },
  clock: systemClock,
  // Loaded on first use: client-node takes a while to import, and --help needs none of it.
  connect: async (flags) => {
    const [{ kubePetSetApi }, { connect }] = await Promise.all([
      import("./plugin/kube-petset-api.js"),
      import("./plugin/kubeconfig.js"),
    ]);
    return kubePetSetApi(connect(flags));
  },
});
process.exitCode = exitCode;
