/**
 * Issue 30 (upgrading and downgrading the controller): the format rules of
 * src/controller/state-format.ts, table-style. A newer controller reads what an older one
 * wrote (absent = format 0); an older one refuses a format above its own.
 */
import { describe, expect, it } from "vitest";
import { STATE_FORMAT, STATE_FORMAT_ANNOTATION } from "../../../src/api/state-format.js";
import { versionMarks } from "../../../src/controller/planner/index.js";
import {
  checkStateFormats,
  KNOWN_FORMATS,
  parseFormat,
  type StateObjects,
} from "../../../src/controller/state-format.js";

const version = (name: string, formatVersion?: unknown) => ({
  metadata: { name },
  status: formatVersion === undefined ? { observedAt: "2026-12-05T10:00:00Z" } : { formatVersion },
});
const pod = (name: string, format?: string) => {
  const annotations: Record<string, string> =
    format === undefined ? { a: "b" } : { [STATE_FORMAT_ANNOTATION]: format };
  return { metadata: { name, annotations } };
};

describe("issue 30: state format versions", () => {
  it("parses what was written: absent is 0, whole numbers are themselves, the rest unreadable", () => {
    const cases: [unknown, number | undefined][] = [
      [undefined, 0],
      [null, 0],
      [0, 0],
      [1, 1],
      [7, 7],
      ["1", 1],
      ["12", 12],
      [-1, undefined],
      [1.5, undefined],
      ["v2", undefined],
      ["", undefined],
      ["-1", undefined],
      [{}, undefined],
    ];
    for (const [raw, want] of cases) expect(parseFormat(raw), JSON.stringify(raw)).toBe(want);
  });

  const cases: { name: string; objects: StateObjects; known?: number; ok: boolean; says?: RegExp[] }[] = [
    { name: "nothing written yet", objects: { versions: [], pods: [] }, ok: true },
    {
      name: "the previous release's state (no format anywhere, no status at all)",
      objects: { versions: [version("web-v1"), { metadata: { name: "web-v2" } }], pods: [pod("web-0")] },
      ok: true,
    },
    {
      name: "this release's state",
      objects: {
        versions: [version("web-v1", STATE_FORMAT)],
        pods: [pod("web-0", String(STATE_FORMAT))],
      },
      ok: true,
    },
    {
      name: "a mix of both (mid-upgrade)",
      objects: {
        versions: [version("web-v1"), version("web-v2", 1)],
        pods: [pod("web-0"), pod("web-1", "1")],
      },
      ok: true,
    },
    {
      name: "a version written by a newer controller",
      objects: { versions: [version("web-v1", 1), version("web-v2", 2)], pods: [pod("web-0", "1")] },
      ok: false,
      says: [
        /PetSetVersion web-v2 status\.formatVersion 2/,
        /reads formats up to 1/,
        /newer petset controller/,
      ],
    },
    {
      name: "a pod marked by a newer controller",
      objects: { versions: [version("web-v1", 1)], pods: [pod("web-0", "1"), pod("web-1", "3")] },
      ok: false,
      says: [/pod web-1 annotation petset\.dev\/state-format "3"/],
    },
    {
      name: "an unreadable format is refused, not guessed",
      objects: { versions: [version("web-v1", "two")], pods: [pod("web-0", "x")] },
      ok: false,
      says: [/web-v1 status\.formatVersion "two"/, /pod web-0 annotation petset\.dev\/state-format "x"/],
    },
    {
      name: "a controller that knows format 2 reads it",
      objects: { versions: [version("web-v1", 2)], pods: [pod("web-0", "2")] },
      known: 2,
      ok: true,
    },
    {
      name: "many findings are summed up",
      objects: { versions: [], pods: [0, 1, 2, 3, 4, 5, 6].map((i) => pod(`web-${i}`, "9")) },
      ok: false,
      says: [/pod web-4 annotation/, /and 2 more/],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const verdict = checkStateFormats(c.objects, c.known);
      expect(verdict.ok).toBe(c.ok);
      if (verdict.ok) return;
      for (const re of c.says ?? []) expect(verdict.message).toMatch(re);
    });
  }

  it("every format up to the one written is known, and the writers stamp it", () => {
    for (let f = 0; f <= STATE_FORMAT; f++) expect(KNOWN_FORMATS[f], `format ${f}`).toBeDefined();
    const v = {
      apiVersion: "petset.dev/v1alpha1" as const,
      kind: "PetSetVersion" as const,
      metadata: { name: "web-v1", namespace: "ns", uid: "u1" },
      spec: {
        petSet: "web",
        version: 1,
        generation: 1,
        hash: "h",
        template: { spec: { containers: [{ name: "app", image: "nginx" }] } },
        volumeClaimTemplates: [],
        delta: [],
      },
    };
    expect(versionMarks(v).annotations[STATE_FORMAT_ANNOTATION]).toBe(String(STATE_FORMAT));
    expect(checkStateFormats({ versions: [v], pods: [] }).ok).toBe(true);
  });
});
