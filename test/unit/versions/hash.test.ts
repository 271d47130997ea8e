import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson, type Json } from "../../../src/versions/canonical-json.js";
import { canonicalContent, type VersionContent } from "../../../src/versions/content.js";
import { HASH_LENGTH, hashContent } from "../../../src/versions/hash.js";
import { content } from "./fixtures.js";

const withClaim: VersionContent = {
  template: {
    metadata: { labels: { app: "db" } },
    spec: { containers: [{ name: "db", image: "postgres:17" }] },
  },
  volumeClaimTemplates: [
    {
      metadata: { name: "data" },
      spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
    },
  ],
};

/**
 * Golden values. If one of these fails, the hash algorithm or the canonical form changed:
 * every existing version and pod would be labelled differently from what a new controller
 * computes. Change them only deliberately, with a note in docs/versions.md.
 */
describe("hashContent golden values", () => {
  it.each<[string, VersionContent, string, string]>([
    [
      "nginx:1.27",
      content("nginx:1.27"),
      '{"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.27","name":"app"}]}}}',
      "362f5e1569",
    ],
    [
      "nginx:1.26",
      content("nginx:1.26"),
      '{"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"image":"nginx:1.26","name":"app"}]}}}',
      "187d2ac621",
    ],
    [
      "with a claim template",
      withClaim,
      '{"template":{"metadata":{"labels":{"app":"db"}},"spec":{"containers":[{"image":"postgres:17","name":"db"}]}},"volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"10737418240"}}}}]}',
      "250d9a0d4a",
    ],
  ])("%s", (_name, c, canonical, golden) => {
    expect(canonicalJson(canonicalContent(c))).toBe(canonical);
    expect(hashContent(c)).toBe(golden);
    // The documented recipe: sha256 of the canonical JSON, first 10 hex characters.
    expect(createHash("sha256").update(canonical).digest("hex").slice(0, 10)).toBe(golden);
  });

  it("is 10 lowercase hex characters, a valid label value", () => {
    for (const image of ["a", "nginx:1.27", "registry.example.com:5000/team/app@sha256:ff"]) {
      expect(hashContent(content(image))).toMatch(/^[0-9a-f]{10}$/);
    }
    expect(HASH_LENGTH).toBe(10);
  });

  it("differs for different content", () => {
    const hashes = new Set(Array.from({ length: 50 }, (_, i) => hashContent(content(`nginx:1.${i}`))));
    expect(hashes.size).toBe(50);
  });
});

describe("canonicalJson", () => {
  it.each<[string, Json, string]>([
    ["scalars", [null, true, false, 0, -1.5, 'a"b\n'], '[null,true,false,0,-1.5,"a\\"b\\n"]'],
    ["sorted keys", { b: 1, a: { d: 2, c: 3 } }, '{"a":{"c":3,"d":2},"b":1}'],
    ["index-like keys sorted as strings", { "10": 1, "9": 2, a: 3 }, '{"10":1,"9":2,"a":3}'],
    ["code-unit order, not locale", { b: 1, B: 2, é: 3, e: 4 }, '{"B":2,"b":1,"e":4,"é":3}'],
    ["non-ASCII kept as is", { label: "größe" }, '{"label":"größe"}'],
  ])("%s", (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });
});
