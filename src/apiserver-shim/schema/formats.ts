/**
 * String formats kube-openapi's strfmt registry checks in CRD schemas. Each checker accepts
 * what the Go implementation accepts in the common cases (Go's net, mail and time parsers are
 * approximated by the grammars they implement).
 */
import { isIPv4, isIPv6 } from "node:net";

const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z0-9\p{S}\p{L}])(-?[a-zA-Z0-9\p{S}\p{L}]){1,62})$/u;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$/;
const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/;
const SCALA_DURATION =
  /^(\d+)\s?(ns|nanos?|nanoseconds?|us|µs|micros?|microseconds?|ms|millis?|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?|w|wk|weeks?)$/;
const MAC =
  /^(([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}|([0-9a-fA-F]{2}[:-]){7}[0-9a-fA-F]{2}|([0-9a-fA-F]{2}[:-]){19}[0-9a-fA-F]{2}|([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}|([0-9a-fA-F]{4}\.){3}[0-9a-fA-F]{4}|([0-9a-fA-F]{4}\.){9}[0-9a-fA-F]{4})$/;
const QUANTITY =
  /^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
const EMAIL = /^(?:[^<>@\s]+@[^<>@\s]+|[^<>]*<[^<>@\s]+@[^<>@\s]+>)$/;

function validCalendarDate(y: string, m: string, d: string): boolean {
  const year = Number(y);
  const month = Number(m);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

function isDateTime(s: string): boolean {
  const m = DATE_TIME.exec(s);
  if (!m) return false;
  const [, y = "", mo = "", d = "", h = "", mi = "", se = "", , zone = ""] = m;
  if (!validCalendarDate(y, mo, d)) return false;
  if (Number(h) > 23 || Number(mi) > 59 || Number(se) > 59) return false;
  if (zone && zone !== "Z" && (Number(zone.slice(1, 3)) > 23 || Number(zone.slice(4, 6)) > 59)) return false;
  return true;
}

function isCidr(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  if (isIPv4(ip)) return Number(bits) <= 32;
  return isIPv6(ip) && Number(bits) <= 128;
}

function isRequestUri(s: string): boolean {
  if (s.startsWith("/")) return !/\s/.test(s);
  try {
    const u = new URL(s);
    return u.protocol.length > 1 && !/\s/.test(s);
  } catch {
    return false;
  }
}

function isbnDigits(s: string): string {
  return s.replace(/[\s-]/g, "");
}

function isIsbn10(s: string): boolean {
  const d = isbnDigits(s);
  if (!/^\d{9}[\dX]$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i + 1) * (d[i] === "X" ? 10 : Number(d[i]));
  return sum % 11 === 0;
}

function isIsbn13(s: string): boolean {
  const d = isbnDigits(s);
  if (!/^\d{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(d[12]);
}

function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]/g, "");
  if (
    !/^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/.test(
      d,
    )
  )
    return false;
  let sum = 0;
  let double = false;
  for (let i = d.length - 1; i >= 0; i--) {
    let n = Number(d[i]);
    if (double) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
    double = !double;
  }
  return sum % 10 === 0;
}

function isRgbColor(s: string): boolean {
  const m = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(s);
  return !!m && m.slice(1).every((c) => Number(c) <= 255);
}

const CHECKERS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestUri,
  email: (s) => EMAIL.test(s),
  hostname: (s) => HOSTNAME.test(s) && s.length <= 255 && s.split(".").every((p) => p.length <= 63),
  ipv4: (s) => isIPv4(s),
  ipv6: (s) => isIPv6(s),
  cidr: isCidr,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => isIsbn10(s) || isIsbn13(s),
  isbn10: isIsbn10,
  isbn13: isIsbn13,
  creditcard: isCreditCard,
  ssn: (s) => /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: isRgbColor,
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: (s) => {
    const m = DATE.exec(s);
    return !!m && validCalendarDate(m[1] ?? "", m[2] ?? "", m[3] ?? "");
  },
  duration: (s) => GO_DURATION.test(s) || SCALA_DURATION.test(s),
  datetime: isDateTime,
  quantity: (s) => QUANTITY.test(s),
};

/** True when `value` is valid for `format` (formats kube does not know always pass). */
export function checkFormat(format: string, value: string): boolean {
  const check = CHECKERS[format.replaceAll("-", "")];
  return check ? check(value) : true;
}
