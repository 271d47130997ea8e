/**
 * The controller's bundle: `dist/src/cli/petset.bundle.js`, what the container image runs
 * (Dockerfile ENTRYPOINT; `make build` writes it after tsc). Run as `node dist/hack/bundle.js`.
 *
 * Why (issue 29, docs/benchmarks.md §4 "Memory"): a Node process keeps the source text of every
 * module it loads. `@kubernetes/client-node` is 54 MB of generated JavaScript, and its index
 * loads every API group's classes (three 0.7–6 MB files among them) although the controller
 * calls six; importing it alone added ~27 MiB of heap and ~70 MiB of RSS. The bundle keeps only
 * the code the `petset` CLI reaches from its entry, minified, so the controller in an empty
 * namespace reads ~83 MiB of RSS instead of ~138.
 *
 * What is left out: `dev` and `demo` stay separate modules (petset.ts imports them when their
 * command runs; here they are external, so they load the tsc build beside the bundle, with
 * its files and the full client-node: development tools, not the deployed controller). The
 * source map is written beside the bundle: names in stack traces are minified, and
 * `NODE_OPTIONS=--enable-source-maps` maps them back to src/ (docs/operations.md).
 *
 * `punycode` is the npm package, not Node's deprecated built-in of that name: node-fetch (which
 * client-node imports, though no controller client sends through it) loads whatwg-url, which
 * requires `punycode`, and Node 22+ prints a DeprecationWarning for the built-in on every start.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

/** dist/ (this file is dist/hack/bundle.js once built). */
const DIST = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CLI = join(DIST, "src", "cli");
const BUNDLE = join(CLI, "petset.bundle.js");

async function main(): Promise<void> {
  const result = await build({
    input: join(CLI, "petset.js"),
    platform: "node",
    // Loaded by path when their command runs (the tsc build beside the bundle).
    external: [/(^|\/)(dev|demo)-command\.js$/],
    // The trailing slash names the package, not the built-in module (see the header).
    resolve: { alias: { punycode: "punycode/" } },
    logLevel: "warn",
    output: { file: BUNDLE, format: "esm", minify: true, sourcemap: true },
  });
  const chunks = result.output.filter((o) => o.type === "chunk");
  const code = chunks[0];
  if (chunks.length !== 1 || !code)
    throw new Error(`expected one chunk, got ${result.output.map((o) => o.fileName).join(", ")}`);
  process.stdout.write(
    `bundle: dist/src/cli/${code.fileName} (${(code.code.length / 2 ** 20).toFixed(1)} MiB)\n`,
  );
}

await main();
