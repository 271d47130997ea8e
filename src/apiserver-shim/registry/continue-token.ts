/** `continue` tokens of paged lists: the list's resourceVersion and the key to start after. */
import { badRequest } from "../errors.js";

export function encodeContinue(rv: string, start: string): string {
  return Buffer.from(
    JSON.stringify({ v: "meta.k8s.io/v1", rv: Number(rv), start: `${start}\u0000` }),
  ).toString("base64url");
}

export function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, "base64url").toString("utf8")) as { rv: number; start: string };
    if (typeof t.start !== "string") throw new Error("no start");
    return { rv: t.rv, start: t.start.endsWith("\u0000") ? t.start.slice(0, -1) : t.start };
  } catch {
    throw badRequest(
      "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
    );
  }
}
