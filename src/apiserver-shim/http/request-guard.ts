/**
 * Who may talk to the embedded server (docs/apiserver-shim.md, "Security model"), checked on
 * every request and every upgrade before anything else:
 *
 * 1. Browsers are refused (403): a `Host` that is not a loopback name or address, nor one
 *    the server listens on, is a DNS-rebinding page; an `Origin` (any value, `null` too) or a
 *    `Sec-Fetch-Site` header comes from a web page. kubectl and client-node send neither.
 * 2. A bearer token is required (401 `Unauthorized` without one or with an unknown one).
 *    The first token is the owner's: the one in the kubeconfig the server writes. Other
 *    tokens (more lines of `--token-file`) may only read: writes and `pods/exec` with them
 *    are 403, since creating Jobs, pods or PetSets with exec hooks runs commands here too.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { ApiError, unauthorized } from "../errors.js";

export type Caller = "owner" | "reader";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const digest = (s: string): Buffer => createHash("sha256").update(s).digest();

/** 127.0.0.0/8, ::1 and `localhost`, also as IPv4-mapped IPv6 addresses. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.replace(/^\[|\]$/g, "").toLowerCase();
  const v4 = a.startsWith("::ffff:") ? a.slice(7) : a;
  return (isIP(v4) === 4 && v4.startsWith("127.")) || a === "::1" || a === "localhost";
}

/** The host part of a `Host` header: `[::1]:80` → `::1`, `Example.com:6443` → `example.com`. */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") < 0 ? undefined : h.indexOf("]"));
  const colon = h.indexOf(":");
  // An IPv6 address without brackets has several colons: no port to strip.
  return colon >= 0 && h.indexOf(":", colon + 1) < 0 ? h.slice(0, colon) : h;
}

export class RequestGuard {
  readonly #owner: Buffer;
  readonly #readers: Buffer[];
  readonly #hosts: Set<string>;

  /**
   * @param tokens accepted bearer tokens, the owner's first (at least one).
   * @param hosts names and addresses besides loopback that clients may put in `Host`.
   */
  constructor(tokens: readonly string[], hosts: readonly string[]) {
    const [owner, ...readers] = tokens;
    if (!owner) throw new Error("the embedded API server needs at least one bearer token");
    this.#owner = digest(owner);
    this.#readers = readers.map(digest);
    this.#hosts = new Set(hosts.map((h) => h.replace(/^\[|\]$/g, "").toLowerCase()));
  }

  /** 403 for a request that a web page sent, or that names a host we do not serve. */
  checkOrigin(req: IncomingMessage): void {
    const host = hostOf(req.headers.host ?? "");
    if (!isLoopback(host) && !this.#hosts.has(host))
      throw browserRefused(
        `the Host header ${JSON.stringify(req.headers.host ?? "")} is not a loopback name or an address this server listens on (DNS rebinding?)`,
      );
    if (req.headers.origin !== undefined)
      throw browserRefused(
        `requests with an Origin header (${JSON.stringify(req.headers.origin)}) come from web pages`,
      );
    // Browsers send Sec-Fetch-Site on every request; Node's fetch sends Sec-Fetch-Mode only.
    if (req.headers["sec-fetch-site"] !== undefined)
      throw browserRefused("requests with a Sec-Fetch-Site header come from web pages");
  }

  /** Who sent the request, by its bearer token; 401 when none or an unknown one. */
  authenticate(req: IncomingMessage): Caller {
    const auth = req.headers.authorization ?? "";
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (!m) throw unauthorized();
    const given = digest(m[1]!);
    if (timingSafeEqual(given, this.#owner)) return "owner";
    if (this.#readers.some((r) => timingSafeEqual(given, r))) return "reader";
    throw unauthorized();
  }

  /** 403 unless `caller` may do `method` (readers only read); `what` names the target. */
  authorize(caller: Caller, method: string, what: string): void {
    if (caller === "owner" || READ_METHODS.has(method)) return;
    throw new ApiError(
      403,
      "Forbidden",
      `${what} is forbidden: this token may only read; writes and exec need the token of the kubeconfig petset dev writes`,
    );
  }
}

function browserRefused(why: string): ApiError {
  return new ApiError(403, "Forbidden", `forbidden: ${why}; the embedded API server refuses browsers`);
}
