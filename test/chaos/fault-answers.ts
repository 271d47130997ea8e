/**
 * What the fault proxy (fault-proxy.ts) answers in kube-apiserver's place: the Status bodies of
 * its 429/503 bursts and of a watch that is too old, its own TLS identity, and the kubeconfig
 * that points at it.
 */
import { randomUUID } from "node:crypto";
import { KubeConfig } from "@kubernetes/client-node";
import { createServingCert, type ServingCert } from "../../src/apiserver-shim/serving-cert.js";

/** The kube-apiserver Status body of a status-burst answer and its Retry-After header. */
export function burstStatus(code: 429 | 503): { body: Record<string, unknown>; retryAfter: string } {
  const common = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", code };
  if (code === 429)
    return {
      body: {
        ...common,
        message: "storage is (re)initializing",
        reason: "TooManyRequests",
        details: { retryAfterSeconds: 1 },
      },
      retryAfter: "1",
    };
  return {
    body: { ...common, message: "apiserver is shutting down", reason: "ServiceUnavailable" },
    retryAfter: "1",
  };
}

/** The one watch event of a gone-watch answer: a 410 Expired Status, as the watch cache sends. */
export function goneWatchEvent(resourceVersion: string | null): Record<string, unknown> {
  return {
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `too old resource version: ${resourceVersion || "0"}`,
      reason: "Expired",
      code: 410,
    },
  };
}

export function isWatchRequest(url: URL): boolean {
  const w = url.searchParams.get("watch");
  return w === "true" || w === "1";
}

let proxyCert: ServingCert | undefined;
/** One CA and serving certificate per process (RSA keys take a while; tests start many proxies). */
export function certificate(): ServingCert {
  proxyCert ??= createServingCert(["localhost", "127.0.0.1"]);
  return proxyCert;
}

/** Headers a proxy must not pass on (hop-by-hop) or that it sets itself. */
export const DROPPED_REQUEST_HEADERS = new Set([
  "host",
  "authorization",
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

/** A kubeconfig that points at the proxy at `url`, trusts `caCert`, carries no credentials. */
export function proxyKubeConfig(url: string, caCert: string): KubeConfig {
  const name = `fault-proxy-${randomUUID().slice(0, 8)}`;
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromOptions({
    clusters: [{ name, server: url, caData: Buffer.from(caCert).toString("base64"), skipTLSVerify: false }],
    users: [{ name }],
    contexts: [{ name, cluster: name, user: name }],
    currentContext: name,
  });
  return kubeconfig;
}
