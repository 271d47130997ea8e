/**
 * kube-apiserver's audit log (test/cluster/up.sh: every write at Metadata level, one
 * ResponseComplete entry per request, blocking mode) read as the writes of one user in one
 * namespace: how the rollout benchmark counts the API writes of petset and of the built-in
 * StatefulSet controller alike, by the server's account rather than the client's.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const AuditEventSchema = z.object({
  verb: z.string(),
  user: z.object({ username: z.string() }),
  objectRef: z
    .object({
      resource: z.string().optional(),
      subresource: z.string().optional(),
      namespace: z.string().optional(),
      name: z.string().optional(),
    })
    .optional(),
  requestReceivedTimestamp: z.string(),
  responseStatus: z.object({ code: z.number().optional() }).optional(),
});

export interface AuditWrite {
  user: string;
  verb: string;
  /** `pods`, `statefulsets/status`, ... */
  resource: string;
  name: string;
  at: number;
  code: number;
}

const WRITE_VERBS: ReadonlySet<string> = new Set(["create", "update", "patch", "delete", "deletecollection"]);

/** Users as they appear in the audit log. */
export const AUDIT_USERS = {
  petset: "petset-controller",
  statefulset: "system:serviceaccount:kube-system:statefulset-controller",
  kwok: "kwok",
} as const;

/** Writes into `namespace` received in [from, to] (ms since the epoch), every user. */
export async function auditWrites(clusterDir: string, namespace: string, from: number, to: number) {
  const dir = join(clusterDir, "audit");
  if (!existsSync(dir)) throw new Error(`no audit log in ${dir} (test/cluster/up.sh writes it)`);
  const files = (await readdir(dir)).filter((f) => /^audit.*\.log$/.test(f));
  const out: AuditWrite[] = [];
  for (const file of files) {
    const path = join(dir, file);
    if (file !== "audit.log" && (await stat(path)).mtimeMs < from) continue;
    for (const line of (await readFile(path, "utf8")).split("\n")) {
      if (!line.includes(`"${namespace}"`)) continue;
      const e = AuditEventSchema.safeParse(parseJson(line));
      if (!e.success || !WRITE_VERBS.has(e.data.verb) || e.data.objectRef?.namespace !== namespace) continue;
      const at = Date.parse(e.data.requestReceivedTimestamp);
      if (at < from || at > to) continue;
      const ref = e.data.objectRef;
      out.push({
        user: e.data.user.username,
        verb: e.data.verb,
        resource: ref.subresource ? `${ref.resource}/${ref.subresource}` : (ref.resource ?? "?"),
        name: ref.name ?? "",
        at,
        code: e.data.responseStatus?.code ?? 0,
      });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Count of writes by "verb resource". */
export function countByKind(writes: readonly AuditWrite[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const w of writes) out[`${w.verb} ${w.resource}`] = (out[`${w.verb} ${w.resource}`] ?? 0) + 1;
  return out;
}

/**
 * The simulated kubelet's own time per pet, from the log: from the controller's delete of a
 * pod to kwok's final delete of it (the graceful-termination stage delay), plus from the
 * controller's create of its replacement to kwok's status write that follows (start stage).
 * Summed over the pods the controller deleted.
 */
export function kubeletSeconds(writes: readonly AuditWrite[], controllerUser: string): number {
  let total = 0;
  const pending = new Map<string, { kind: "delete" | "create"; at: number }>();
  for (const w of writes) {
    if (w.resource !== "pods" && w.resource !== "pods/status") continue;
    if (w.user === controllerUser && w.verb === "delete" && w.resource === "pods") {
      pending.set(w.name, { kind: "delete", at: w.at });
    } else if (w.user === controllerUser && w.verb === "create" && w.resource === "pods") {
      pending.set(w.name, { kind: "create", at: w.at });
    } else if (w.user === AUDIT_USERS.kwok) {
      const p = pending.get(w.name);
      if (!p) continue;
      const done = p.kind === "delete" ? w.verb === "delete" : w.resource === "pods/status";
      if (done) {
        total += (w.at - p.at) / 1000;
        pending.delete(w.name);
      }
    }
  }
  return total;
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
