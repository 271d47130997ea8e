/**
 * The query options of a write (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions),
 * checked before anything is written, as kube-apiserver's option validation does: an unknown
 * `dryRun` or `fieldValidation`, a bad `fieldManager` or an unparsable `gracePeriodSeconds`
 * refuses the request. (Fuzzed input: `DELETE ?dryRun=Bogus` deleted the object here; kube
 * answers 422 and keeps it.)
 */
import { badRequest, fieldInvalidGo, fieldNotSupported, invalid } from "../errors.js";
import { fieldErrors } from "../schema/field-error.js";
import type { FieldError } from "../schema/index.js";

const OPTIONS_KIND: Record<string, string> = {
  POST: "CreateOptions",
  PUT: "UpdateOptions",
  PATCH: "PatchOptions",
  DELETE: "DeleteOptions",
};

/** k8s.io/apimachinery ValidateFieldManager: at most 128 bytes, printable characters. */
const MAX_FIELD_MANAGER_BYTES = 128;

export function validateRequestOptions(method: string, q: URLSearchParams): void {
  const kind = OPTIONS_KIND[method];
  if (!kind) return;
  const grace = q.get("gracePeriodSeconds");
  if (method === "DELETE" && grace !== null && grace !== "" && !/^[+-]?\d+$/.test(grace))
    throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`);
  const errs: FieldError[] = [];
  const dryRun = q.getAll("dryRun");
  if (dryRun.some((v) => v !== "All")) {
    const goList = `[]string{${dryRun.map((v) => JSON.stringify(v)).join(", ")}}`;
    errs.push({
      ...fieldNotSupported("dryRun", dryRun, ["All"]),
      message: `dryRun: Unsupported value: ${goList}: supported values: "All"`,
    });
  }
  const policy = q.get("propagationPolicy");
  if (method === "DELETE" && policy !== null && !["Foreground", "Background", "Orphan"].includes(policy))
    errs.push(fieldNotSupported("propagationPolicy", policy, ["Foreground", "Background", "Orphan", "nil"]));
  if (method !== "DELETE") {
    const fv = q.get("fieldValidation");
    if (fv !== null && !["", "Ignore", "Strict", "Warn"].includes(fv))
      errs.push(fieldNotSupported("fieldValidation", fv, ["", "Ignore", "Strict", "Warn"]));
    const fm = q.get("fieldManager");
    if (fm !== null) {
      if (Buffer.byteLength(fm) > MAX_FIELD_MANAGER_BYTES)
        errs.push(fieldErrors.tooLong("fieldManager", "", MAX_FIELD_MANAGER_BYTES));
      const bad = [...fm].findIndex((ch) => !isPrintable(ch));
      if (bad >= 0) {
        const ch = [...fm][bad] ?? "";
        const code = `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
        errs.push(
          fieldInvalidGo(
            "fieldManager",
            fm,
            JSON.stringify(fm),
            `invalid character ${code} (at position ${bad})`,
          ),
        );
      }
    }
  }
  if (errs.length) throw invalid("meta.k8s.io", kind, "", errs);
}

function isPrintable(ch: string): boolean {
  return !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u.test(ch);
}
