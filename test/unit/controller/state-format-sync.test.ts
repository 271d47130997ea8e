/**
 * Issue 30 (upgrading and downgrading the controller): what the sync writes and refuses by
 * the state format (src/controller/state-format.ts), against the fake world. The writers stamp
 * the format; state without one (the previous release's) is read and acted on; state in a
 * newer format is left alone, with a condition and an Event.
 */
import type { KubernetesObject, V1Pod } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { STATE_FORMAT, STATE_FORMAT_ANNOTATION } from "../../../src/api/state-format.js";
import { syncPetSet } from "../../../src/controller/sync.js";
import { FakeWorld, petSetObject } from "./fake-world.js";

const KEY = "default/web";

async function settle(world: FakeWorld, rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await syncPetSet(world.context(), KEY);
    world.makePodsReady();
  }
}

const formatOf = (v: KubernetesObject) =>
  (v as { status?: { formatVersion?: number } }).status?.formatVersion;

/** The world as the previous release left it: no format on versions or pods. */
function asPreviousRelease(world: FakeWorld): void {
  for (const v of world.versions.liveList()) {
    const status = { ...((v as { status?: Record<string, unknown> }).status ?? {}) };
    delete status.formatVersion;
    world.versions.put({ ...v, status } as KubernetesObject);
  }
  for (const p of world.pods.liveList()) {
    const annotations = { ...(p.metadata?.annotations ?? {}) };
    delete annotations[STATE_FORMAT_ANNOTATION];
    world.pods.put({ ...p, metadata: { ...p.metadata, annotations } } as V1Pod);
  }
}

function updateImage(world: FakeWorld, image: string): void {
  const ps = petSetObject(image);
  world.petSets.put({ ...ps, metadata: { ...ps.metadata, generation: 2 } } as KubernetesObject);
}

describe("issue 30: upgrading and downgrading the controller, by state format", () => {
  it("every version status and pod the controller writes carries its format", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    expect(world.versions.liveList().map(formatOf)).toEqual([STATE_FORMAT]);
    expect(world.pods.liveList().map((p) => p.metadata?.annotations?.[STATE_FORMAT_ANNOTATION])).toEqual([
      String(STATE_FORMAT),
      String(STATE_FORMAT),
    ]);
  });

  it("state the previous release wrote (no format) is read, acted on, and upgraded on write", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    asPreviousRelease(world);
    updateImage(world, "nginx:1.28");
    await settle(world, 20);
    const last = world.statuses.at(-1);
    expect(last).toMatchObject({ updateVersion: 2, currentVersion: 2, updatedReplicas: 2 });
    expect(world.versions.liveList().map(formatOf)).toEqual([STATE_FORMAT, STATE_FORMAT]);
  });

  it("a newer format on a version stops everything for that PetSet, with a condition and an Event", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    const v1 = world.versions.liveList()[0] as KubernetesObject & { status?: object };
    world.versions.put({
      ...v1,
      status: { ...v1.status, formatVersion: STATE_FORMAT + 1 },
    } as KubernetesObject);
    updateImage(world, "nginx:1.28");
    const before = world.calls.length;
    const lines: string[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => lines.push(line) });
    const result = await syncPetSet({ ...world.context(), logger }, KEY);
    expect(result.requeueAfterMs).toBeGreaterThan(0);
    // Only the PetSet's status: no version created, no pod touched, no fact recorded.
    expect(world.calls.slice(before).map((c) => c.verb)).toEqual(["status"]);
    const progressing = world.statuses.at(-1)?.conditions.find((c) => c.type === "Progressing");
    expect(progressing).toMatchObject({ status: "False", reason: "UnsupportedStateFormat" });
    expect(progressing?.message).toContain(`PetSetVersion web-v1 status.formatVersion ${STATE_FORMAT + 1}`);
    const warning = world.events.find((e) => e.reason === "UnsupportedStateFormat");
    expect(warning?.type).toBe("Warning");
    const logged = lines.map(
      (l) => JSON.parse(l) as { level: number; msg: string; petSet: string; message: string },
    );
    expect(logged).toMatchObject([{ level: 40, msg: "not acting on this PetSet", petSet: "default/web" }]);
    expect(logged[0]?.message).toBe(progressing?.message);
    // Once the newer controller's state is gone (it is run again and rewrites, or a person
    // fixes it), this one carries on.
    world.versions.put({ ...v1, status: { ...v1.status, formatVersion: STATE_FORMAT } } as KubernetesObject);
    await settle(world, 20);
    expect(world.statuses.at(-1)).toMatchObject({ updateVersion: 2, currentVersion: 2 });
  });

  it("a pod marked in a newer format stops the PetSet too", async () => {
    const world = new FakeWorld();
    world.petSets.put(petSetObject());
    await settle(world);
    const pod = world.pods.liveList()[1] as V1Pod;
    world.pods.put({
      ...pod,
      metadata: {
        ...pod.metadata,
        annotations: { ...pod.metadata?.annotations, [STATE_FORMAT_ANNOTATION]: "9" },
      },
    });
    updateImage(world, "nginx:1.28");
    const before = world.calls.length;
    await syncPetSet(world.context(), KEY);
    expect(world.calls.slice(before).map((c) => c.verb)).toEqual(["status"]);
    expect(world.statuses.at(-1)?.conditions.find((c) => c.type === "Progressing")?.message).toMatch(
      /pod web-1 annotation petset\.dev\/state-format "9"/,
    );
  });
});
