/**
 * The durability campaign's checker fed planted restarts (issue 24, "Harnesses that can
 * fail"): an acknowledged write lost, an acknowledged create or delete undone, a
 * resourceVersion gone back; each must be reported, while an unanswered write may land or not.
 */
import { describe, expect, it } from "vitest";
import { type Content, WriteModel } from "../../durability/write-model.js";

/** Three ConfigMaps acknowledged at rv 5, 6, 7 (c deleted), and one write in flight on a. */
function model(): WriteModel {
  const m = new WriteModel();
  m.ack(m.record("configmap", "a"), "a1", 5);
  m.ack(m.record("configmap", "b"), "b1", 6);
  const c = m.record("configmap", "c");
  m.ack(c, "c1", 3);
  m.ack(c, undefined, 7);
  m.begin(m.record("configmap", "a"), "a2");
  return m;
}

const seen = (entries: [string, Content, number][]) =>
  new Map(entries.map(([id, content, rv]) => [`configmap/${id}`, { content, rv }]));

describe("durability: what the restarted server holds against what was acknowledged", () => {
  it("passes the acknowledged state, and an in-flight write either applied or not", () => {
    const applied = model().verify(
      1,
      seen([
        ["a", "a2", 8],
        ["b", "b1", 6],
      ]),
    );
    expect(applied).toEqual({ findings: [], inFlightApplied: 1, inFlightLost: 0 });
    const notApplied = model().verify(
      1,
      seen([
        ["a", "a1", 5],
        ["b", "b1", 6],
      ]),
    );
    expect(notApplied).toEqual({ findings: [], inFlightApplied: 0, inFlightLost: 1 });
  });

  it("reports a lost acknowledged write (the object holds the content before it)", () => {
    const m = new WriteModel();
    const b = m.record("configmap", "b");
    m.ack(b, "b1", 4);
    m.ack(b, "b2", 6);
    expect(m.verify(1, seen([["b", "b1", 4]])).findings.map((f) => f.message)).toEqual([
      'after restart configmap/b is "b1"; acknowledged: "b2" at resourceVersion 6',
    ]);
  });

  it("reports an acknowledged create that is gone and an acknowledged delete that came back", () => {
    const found = model()
      .verify(
        1,
        seen([
          ["a", "a1", 5],
          ["c", "c1", 3],
        ]),
      )
      .findings.map((f) => f.object);
    expect(found).toEqual(["configmap/b", "configmap/c"]);
  });

  it("reports an object whose resourceVersion went back, and a list behind the acknowledged", () => {
    const m = model();
    expect(
      m
        .verify(
          1,
          seen([
            ["a", "a1", 5],
            ["b", "b1", 2],
          ]),
        )
        .findings.map((f) => f.message),
    ).toEqual(["after restart configmap/b has resourceVersion 2, older than the acknowledged 6"]);
    expect(m.listBehind(1, 6)?.message).toBe(
      "resourceVersion went backwards: list at 6 after 7 was acknowledged",
    );
    expect(m.listBehind(1, 7)).toBeUndefined();
  });
});
