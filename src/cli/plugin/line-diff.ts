/**
 * Line diff with Myers' O(ND) algorithm: the shortest edit script between two lists of
 * lines, deletions before insertions within a change (as `diff -u` and git print them).
 */
export type DiffOp =
  | { readonly kind: "equal"; readonly text: string }
  | { readonly kind: "delete"; readonly text: string }
  | { readonly kind: "insert"; readonly text: string };

export function diffLines(a: readonly string[], b: readonly string[]): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const offset = n + m + 1;
  // v[k + offset]: the furthest x reached on diagonal k (k = x - y) in the current round.
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= n + m; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = stepDown(v, k, d, offset) ? at(v, k + 1 + offset) : at(v, k - 1 + offset) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[k + offset] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, offset);
    }
  }
  return backtrack(trace, a, b, offset);
}

/** Whether the path to diagonal k in round d comes from k+1 (an insertion). */
function stepDown(v: Int32Array, k: number, d: number, offset: number): boolean {
  return k === -d || (k !== d && at(v, k - 1 + offset) < at(v, k + 1 + offset));
}

function at(v: Int32Array, i: number): number {
  return v[i] ?? 0;
}

function backtrack(
  trace: readonly Int32Array[],
  a: readonly string[],
  b: readonly string[],
  offset: number,
): DiffOp[] {
  const ops: DiffOp[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d] ?? new Int32Array(0);
    const k = x - y;
    const prevK = stepDown(v, k, d, offset) ? k + 1 : k - 1;
    const prevX = at(v, prevK + offset);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: "equal", text: a[x - 1] ?? "" });
      x--;
      y--;
    }
    if (d > 0) {
      if (x === prevX) ops.push({ kind: "insert", text: b[y - 1] ?? "" });
      else ops.push({ kind: "delete", text: a[x - 1] ?? "" });
    }
    x = prevX;
    y = prevY;
  }
  return deletionsFirst(ops.reverse());
}

/** Within each run of changes, deletions first: `-old` above `+new` reads as a replacement. */
function deletionsFirst(ops: DiffOp[]): DiffOp[] {
  const out: DiffOp[] = [];
  let inserts: DiffOp[] = [];
  for (const op of ops) {
    if (op.kind === "insert") inserts.push(op);
    else if (op.kind === "delete") out.push(op);
    else {
      out.push(...inserts, op);
      inserts = [];
    }
  }
  return [...out, ...inserts];
}
