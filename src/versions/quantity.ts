/**
 * Canonical form of a Kubernetes resource quantity (`500m`, `1Gi`, `1e3`, `0.5`, or a bare
 * YAML number such as `cpu: 1`).
 *
 * The API server keeps a CRD's embedded template as written, so `cpu: 1`, `cpu: "1"` and
 * `cpu: 1000m` all reach us, while the pods the controller creates treat them as the same
 * amount. We therefore compare by value: the canonical form is the exact decimal value
 * ("1000m" -> "1", "500m" -> "0.5", "1Gi" -> "1073741824"). We do not reproduce the
 * API server's own display format (which would print `1Gi`), because only the value may
 * decide equality and an exact decimal has exactly one spelling per value.
 */

const QUANTITY =
  /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

/** Power-of-ten exponent of each decimal SI suffix. */
const DECIMAL_SUFFIX: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};

/** Power-of-two exponent of each binary SI suffix. */
const BINARY_SUFFIX: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/**
 * Exponents beyond this are not quantities Kubernetes accepts (it caps at about 2^63 and
 * nano precision); refusing them keeps `10n ** scale` from doing unbounded work.
 */
const MAX_SCALE = 100;

/** The exact decimal value of a quantity, or undefined when the input is not one. */
export function canonicalQuantity(input: string | number): string | undefined {
  const text = typeof input === "number" ? String(input) : input;
  const match = QUANTITY.exec(text);
  if (!match) return undefined;
  const [, sign = "", number = "", exponent, suffix] = match;
  const [whole = "", fraction = ""] = number.split(".");
  let digits = BigInt(`${whole}${fraction}` || "0");
  let scale = -fraction.length;
  if (exponent !== undefined) scale += Number(exponent);
  if (suffix !== undefined) {
    const binary = BINARY_SUFFIX[suffix];
    if (binary !== undefined) digits *= 2n ** BigInt(binary);
    else scale += DECIMAL_SUFFIX[suffix] ?? 0;
  }
  if (Math.abs(scale) > MAX_SCALE) return undefined;
  if (digits === 0n) return "0";
  while (scale < 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale += 1;
  }
  const magnitude = scale >= 0 ? (digits * 10n ** BigInt(scale)).toString() : withPoint(digits, -scale);
  return sign === "-" ? `-${magnitude}` : magnitude;
}

/** `digits / 10^places` written out, e.g. (5n, 1) -> "0.5". */
function withPoint(digits: bigint, places: number): string {
  const text = digits.toString().padStart(places + 1, "0");
  return `${text.slice(0, text.length - places)}.${text.slice(text.length - places)}`;
}
