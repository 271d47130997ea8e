/**
 * Renders JSON values the way Go's fmt prints the `interface{}` values kube-apiserver puts in
 * a field error (`%v` for numbers and booleans, `%q` for strings, `%#v` for maps and slices),
 * so that messages match kube-apiserver byte for byte.
 */

/** Go `strconv.Quote`: double-quoted, with Go escapes for control and non-printable characters. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\u0007":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp >= 0x80 && cp < 0xa0) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go `%v` of a float64: shortest digits, exponent form when the exponent is < -4 or >= 6 (`%g`). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const [mantissa = "0", expText = "0"] = n.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? "-" : "+";
    return `${mantissa}e${sign}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  return String(n);
}

/** A JSON number as Go prints the int64 or float64 it decodes to. */
export function goNumber(n: number): string {
  return Number.isInteger(n) && Math.abs(n) < 1e21 ? n.toFixed(0) : goFloat(n);
}

/** Go `%#v` of a decoded JSON value (used inside maps and slices). */
export function goSharpV(v: unknown): string {
  if (v === null || v === undefined) return "interface {}(nil)";
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSharpV).join(", ")}}`;
  if (typeof v === "object") {
    const entries = Object.keys(v as Record<string, unknown>)
      .sort()
      .map((k) => `${goQuote(k)}:${goSharpV((v as Record<string, unknown>)[k])}`);
    return `map[string]interface {}{${entries.join(", ")}}`;
  }
  return String(v);
}

/** How `field.Error.ErrorBody` renders a bad value. */
export function goBadValue(v: unknown): string {
  if (v === null || v === undefined) return goQuote("null");
  if (typeof v === "string") return goQuote(v);
  if (typeof v === "number") return goNumber(v);
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  return goSharpV(v);
}
