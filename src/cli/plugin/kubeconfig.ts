import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { allowPlainHttp } from "../../util/kubeconfig.js";
import { PluginError } from "./errors.js";

/** The connection flags every command takes, as kubectl spells them. */
export interface ConnectionFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
}

export interface Connection {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
}

/**
 * Loads the kubeconfig as kubectl does: `--kubeconfig`, else $KUBECONFIG (files joined by
 * the path separator; missing ones skipped), else ~/.kube/config, else the in-cluster
 * service account. The namespace is `-n`, else the context's, else `default`.
 */
export function connect(flags: ConnectionFlags, env: KubeconfigEnv = processEnv()): Connection {
  let kubeConfig = load(flags, env);
  kubeConfig = allowPlainHttp(kubeConfig);
  if (flags.context !== undefined) {
    if (kubeConfig.getContextObject(flags.context) === null)
      throw new PluginError(
        "Kubeconfig",
        `--context: context "${flags.context}" does not exist in the kubeconfig: expected one of ${
          kubeConfig
            .getContexts()
            .map((c) => c.name)
            .join(", ") || "(none)"
        }`,
      );
    kubeConfig.setCurrentContext(flags.context);
  }
  if (kubeConfig.getCurrentCluster() === null)
    throw new PluginError(
      "Kubeconfig",
      "the kubeconfig names no cluster for the current context: pass --kubeconfig or --context",
    );
  const contextNamespace = kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace;
  const namespace = nonEmpty(flags.namespace) ?? nonEmpty(contextNamespace) ?? "default";
  return { kubeConfig, namespace };
}

/** What kubeconfig loading reads from the environment; read when a command runs, not at import. */
export interface KubeconfigEnv {
  readonly KUBECONFIG?: string | undefined;
  readonly home: string;
  /** Set inside a pod: the in-cluster service account is the fallback. */
  readonly inCluster: boolean;
}

function processEnv(): KubeconfigEnv {
  return {
    KUBECONFIG: process.env.KUBECONFIG,
    home: homedir(),
    inCluster: process.env.KUBERNETES_SERVICE_HOST !== undefined,
  };
}

const HINT = 'after make run: export KUBECONFIG="$PWD/.petset/kubeconfig"';

/**
 * `--kubeconfig`, else the files of $KUBECONFIG that exist (kubectl skips missing ones),
 * merged, else ~/.kube/config, else in-cluster. Nothing at all is an error that says what
 * to set, not client-node's silent fallback to localhost:8080.
 */
function load(flags: ConnectionFlags, env: KubeconfigEnv): KubeConfig {
  const kubeConfig = new KubeConfig();
  const fromFile = (file: string, what: string): KubeConfig => {
    if (!existsSync(file))
      throw new PluginError(
        "Kubeconfig",
        `${what} "${file}" does not exist: pass an existing kubeconfig (${HINT})`,
      );
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(file);
    } catch (err) {
      throw new PluginError("Kubeconfig", `cannot load ${what} "${file}": ${messageOf(err)}`, 1, {
        cause: err,
      });
    }
    return kc;
  };
  if (flags.kubeconfig !== undefined) return fromFile(flags.kubeconfig, "--kubeconfig");
  const listed = (env.KUBECONFIG ?? "").split(delimiter).filter((f) => f !== "");
  if (listed.length > 0) {
    const files = listed.filter((f) => existsSync(f));
    if (files.length === 0)
      throw new PluginError(
        "Kubeconfig",
        `$KUBECONFIG names no file that exists (${listed.join(delimiter)}): set it to an existing kubeconfig (${HINT})`,
      );
    const [first, ...rest] = files.map((f) => fromFile(f, "$KUBECONFIG file"));
    for (const kc of rest) first?.mergeConfig(kc, true);
    return first ?? kubeConfig;
  }
  const home = join(env.home, ".kube", "config");
  if (existsSync(home)) return fromFile(home, "kubeconfig");
  if (env.inCluster) {
    kubeConfig.loadFromCluster();
    return kubeConfig;
  }
  throw new PluginError(
    "Kubeconfig",
    `no kubeconfig: set $KUBECONFIG or pass --kubeconfig (${HINT}), or create ~/.kube/config`,
  );
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** The first line: YAML parse errors come with a code frame. */
function messageOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n")[0] ?? text;
}
