/** The embedded Kubernetes-compatible API server (see docs/apiserver-shim.md). */

export { createShimCore, type ShimCore, type ShimCoreOptions } from "./core.js";
export { type KubeconfigOptions, kubeconfigYaml, writeKubeconfig } from "./kubeconfig.js";
export { type ApiServer, type ApiServerOptions, type ReceivedRequest, startApiServer } from "./server.js";
export { type Clock, systemClock } from "./time.js";
export type { KubeObject, ObjectMeta } from "./types.js";
