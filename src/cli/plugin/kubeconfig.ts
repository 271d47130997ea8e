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
 * the path separator), else ~/.kube/config, else the in-cluster service account. The
 * namespace is `-n`, else the context's, else `default`.
 */
export function connect(flags: ConnectionFlags): Connection {
  let kubeConfig = new KubeConfig();
  try {
    if (flags.kubeconfig !== undefined) kubeConfig.loadFromFile(flags.kubeconfig);
    else kubeConfig.loadFromDefault();
  } catch (err) {
    const where =
      flags.kubeconfig !== undefined ? `"${flags.kubeconfig}"` : "from $KUBECONFIG or ~/.kube/config";
    throw new PluginError("Kubeconfig", `cannot load kubeconfig ${where}: ${messageOf(err)}`, 1, {
      cause: err,
    });
  }
  kubeConfig = allowPlainHttp(kubeConfig);
  if (flags.context !== undefined) {
    if (kubeConfig.getContextObject(flags.context) === null)
      throw new PluginError(
        "Kubeconfig",
        `--context: context "${flags.context}" does not exist in the kubeconfig`,
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

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
