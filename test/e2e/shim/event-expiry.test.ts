/**
 * Events expire as on kube-apiserver (`--event-ttl`), and /metrics shows the stored objects per
 * resource (`apiserver_storage_objects`): the hour-long soak found the embedded server kept
 * every Event ever recorded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type ShimHarness, startHarness } from "./harness.js";

const event = (name: string) => `apiVersion: v1
kind: Event
metadata: {name: ${name}, namespace: default}
involvedObject: {kind: Pod, name: web-0, namespace: default}
reason: Testing
message: expires soon
type: Normal
`;

describe("event expiry", () => {
  let h: ShimHarness;
  beforeAll(async () => {
    h = await startHarness({ eventTtlMs: 2_000 });
  });
  afterAll(async () => {
    await h.close();
  });

  const storedEvents = async () => {
    const text = await (await h.fetch(`${h.server.url}/metrics`)).text();
    const m = /^apiserver_storage_objects\{resource="events"\} (\d+)$/m.exec(text);
    return m ? Number(m[1]) : 0;
  };

  it("deletes an Event once its TTL after the last write has passed; /metrics counts it until then", async () => {
    const created = await h.kubectl(["create", "-f", "-"], event("short-lived"));
    expect(created.code, created.stderr).toBe(0);
    expect(await storedEvents()).toBe(1);
    await eventually(
      async () => {
        const got = await h.kubectl(["get", "events", "-n", "default", "-o", "name"]);
        return got.code === 0 && got.stdout.trim() === "";
      },
      15_000,
      "the Event expired",
    );
    expect(await storedEvents()).toBe(0);
  });
});
