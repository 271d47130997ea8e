/**
 * Creates sent as the controller's own JSON (src/controller/json-body.ts), through a real
 * client-node CoreV1Api against a real Node HTTP server: the server receives the object as
 * built (fields client-node's models do not know included, dates as ISO strings), with the
 * per-call headers it was given kept.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, type CoreV1Event, KubeConfig, type V1Pod } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asJson } from "../../../src/controller/json-body.js";
import { METADATA_ANSWER_ACCEPT, metadataAnswer } from "../../../src/controller/metadata-answer.js";
import { makeApiClientWith } from "../../../src/util/keep-alive.js";

let server: Server;
let api: CoreV1Api;
const seen: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => {
      body += c;
    });
    req.on("end", () => {
      seen.push({ url: req.url ?? "", headers: req.headers, body });
      res.writeHead(201, { "Content-Type": "application/json" });
      res.end('{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"uid":"u-1"}}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: "c",
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: "u", token: "t" }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x",
  });
  api = makeApiClientWith(kc, CoreV1Api, () => {});
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("asJson", () => {
  it("sends a pod as built, a field client-node's model lacks included, with the Accept header kept", async () => {
    const pod = {
      metadata: { name: "web-0", labels: { "petset.dev/petset": "web" } },
      spec: {
        containers: [{ name: "c", image: "nginx:1.27", futureContainerField: { on: true } }],
        futureSpecField: "kept",
      },
    };
    seen.length = 0;
    const send = asJson(pod, metadataAnswer());
    const created = await api.createNamespacedPod({ namespace: "ns", body: send.body }, send.options);
    expect(created.metadata?.uid).toBe("u-1");
    expect(seen[0]?.url).toBe("/api/v1/namespaces/ns/pods");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual(pod);
    expect(seen[0]?.headers.accept).toBe(METADATA_ANSWER_ACCEPT);
    expect(seen[0]?.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify(pod))));
  });

  it("sends an Event's dates as RFC 3339 strings, as client-node's serializer does", async () => {
    const at = new Date("2026-12-07T01:02:03.456Z");
    const event: CoreV1Event = {
      metadata: { name: "web.1", namespace: "ns" },
      involvedObject: { kind: "PetSet", name: "web", namespace: "ns" },
      reason: "RolloutStarted",
      firstTimestamp: at,
      lastTimestamp: at,
    };
    seen.length = 0;
    const send = asJson(event);
    await api.createNamespacedEvent({ namespace: "ns", body: send.body }, send.options);
    const body = JSON.parse(seen[0]?.body ?? "") as Record<string, unknown>;
    expect(body.firstTimestamp).toBe("2026-12-07T01:02:03.456Z");
    expect(body.involvedObject).toEqual({ kind: "PetSet", name: "web", namespace: "ns" });
  });

  it("without it, client-node's typed copy drops the fields its model lacks (why this exists)", async () => {
    seen.length = 0;
    await api.createNamespacedPod({
      namespace: "ns",
      body: { metadata: { name: "p" }, spec: { containers: [], futureSpecField: "x" } as V1Pod["spec"] },
    });
    expect(JSON.parse(seen[0]?.body ?? "").spec).toEqual({ containers: [] });
  });
});
