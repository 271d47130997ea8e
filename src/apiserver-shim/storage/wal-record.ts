/**
 * One line of the write-ahead log: the record as JSON, a tab, and the CRC-32 of the JSON's
 * bytes as 8 hex digits. JSON never holds a raw tab or newline, so a line splits without
 * ambiguity; the checksum tells a torn or overwritten line from a complete one (etcd checks a
 * CRC per record for the same reason). Lines written before checksums (plain JSON) still read.
 */
import { crc32 } from "node:zlib";
import { z } from "zod";
import type { KubeObject } from "../types.js";

export interface WalRecord {
  rv: number;
  op: "put" | "del";
  gr: string;
  key: string;
  obj?: KubeObject;
}

const ObjectSchema = z
  .object({ metadata: z.object({ name: z.string().optional() }).passthrough() })
  .passthrough();

export const WalRecordSchema = z.object({
  rv: z.number().int().positive(),
  op: z.enum(["put", "del"]),
  gr: z.string(),
  key: z.string(),
  obj: ObjectSchema.optional(),
});

export const SnapshotSchema = z.object({
  rv: z.number().int().nonnegative(),
  objects: z.array(z.object({ gr: z.string(), key: z.string(), obj: ObjectSchema })),
});

function checksum(json: string): string {
  return crc32(Buffer.from(json, "utf8")).toString(16).padStart(8, "0");
}

export function encodeRecord(rec: WalRecord): Buffer {
  const json = JSON.stringify(rec);
  return Buffer.from(`${json}\t${checksum(json)}\n`, "utf8");
}

/** The record a complete line (without its newline) holds, or why it holds none. */
export function decodeRecord(line: string): { record: WalRecord } | { problem: string } {
  const tab = line.lastIndexOf("\t");
  const json = tab >= 0 ? line.slice(0, tab) : line;
  if (tab >= 0 && checksum(json) !== line.slice(tab + 1)) return { problem: "checksum mismatch" };
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { problem: "not valid JSON" };
  }
  const parsed = WalRecordSchema.safeParse(raw);
  if (!parsed.success)
    return { problem: `not a log record (${parsed.error.issues[0]?.message ?? "invalid"})` };
  const rec = parsed.data;
  if (rec.op === "put" && rec.obj === undefined) return { problem: "a put without an object" };
  return { record: rec as WalRecord };
}
