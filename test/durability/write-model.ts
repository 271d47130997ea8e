/**
 * What the clients were told: per object, the last acknowledged state (content and
 * resourceVersion, or deleted) and the write in flight when the server died, whose outcome
 * nobody knows. After a restart every object must be in its acknowledged state or in the
 * in-flight one; nothing else is allowed. Pure: test/unit/durability/write-model.test.ts plants
 * lost acknowledged writes and checks each is reported.
 */
export type Kind = "configmap" | "petset";

/** Content a write leaves: a ConfigMap's `data.v` or a PetSet's image; undefined = absent. */
export type Content = string | undefined;

export interface ObjectRecord {
  kind: Kind;
  name: string;
  acked: Content;
  /** resourceVersion of the acknowledged write (0: never written). */
  ackedRv: number;
  /** An unanswered write: its content if it was applied. */
  pending?: { content: Content };
}

export interface Finding {
  cycle: number;
  object?: string;
  message: string;
}

export class WriteModel {
  readonly objects = new Map<string, ObjectRecord>();
  /** Highest resourceVersion any client was told. */
  maxAckedRv = 0;
  acknowledged = 0;
  unanswered = 0;

  record(kind: Kind, name: string): ObjectRecord {
    const id = `${kind}/${name}`;
    let r = this.objects.get(id);
    if (!r) {
      r = { kind, name, acked: undefined, ackedRv: 0 };
      this.objects.set(id, r);
    }
    return r;
  }

  begin(r: ObjectRecord, content: Content): void {
    r.pending = { content };
  }

  ack(r: ObjectRecord, content: Content, rv: number): void {
    r.acked = content;
    r.ackedRv = rv;
    r.pending = undefined;
    this.maxAckedRv = Math.max(this.maxAckedRv, rv);
    this.acknowledged++;
  }

  /** A list whose resourceVersion is below the highest acknowledged one: the server went back in time. */
  listBehind(cycle: number, listRv: number): Finding | undefined {
    if (listRv >= this.maxAckedRv) return undefined;
    return {
      cycle,
      message: `resourceVersion went backwards: list at ${listRv} after ${this.maxAckedRv} was acknowledged`,
    };
  }

  /**
   * Compares what the restarted server holds with what was acknowledged; afterwards the model
   * holds what the server holds, so the next cycle starts from there.
   */
  verify(
    cycle: number,
    seen: Map<string, { content: Content; rv: number }>,
  ): { findings: Finding[]; inFlightApplied: number; inFlightLost: number } {
    const findings: Finding[] = [];
    let inFlightApplied = 0;
    let inFlightLost = 0;
    for (const [id, r] of this.objects) {
      const now = seen.get(id);
      const content = now?.content;
      const matchesAcked = content === r.acked;
      const matchesPending = r.pending !== undefined && content === r.pending.content;
      if (!matchesAcked && !matchesPending) {
        findings.push({
          cycle,
          object: id,
          message: `after restart ${id} is ${describe(content)}; acknowledged: ${describe(r.acked)} at resourceVersion ${r.ackedRv}${r.pending ? `, in flight: ${describe(r.pending.content)}` : ""}`,
        });
      } else if (matchesAcked && now !== undefined && r.ackedRv > 0 && now.rv < r.ackedRv) {
        findings.push({
          cycle,
          object: id,
          message: `after restart ${id} has resourceVersion ${now.rv}, older than the acknowledged ${r.ackedRv}`,
        });
      }
      if (r.pending) {
        if (matchesPending && !matchesAcked) inFlightApplied++;
        else inFlightLost++;
        this.unanswered++;
      }
      r.acked = content;
      r.ackedRv = now?.rv ?? 0;
      r.pending = undefined;
    }
    return { findings, inFlightApplied, inFlightLost };
  }
}

function describe(c: Content): string {
  return c === undefined ? "absent" : `"${c}"`;
}
