/**
 * Reading `resource.Quantity` strings (k8s.io/apimachinery/pkg/api/resource) as numbers for display:
 * CPU in millicores, memory in bytes. Accepts the decimal suffixes (n u m k M G T P E), the binary
 * ones (Ki Mi Gi Ti Pi Ei) and exponents (`1e3`), as `kubectl top` reads metrics-server's usage.
 */

const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
// `\d+(?:\.\d*)?`, not `\d+\.?\d*`: without a dot that splits a run of digits between `\d+` and
// `\d*` in every way before failing, quadratic on a hostile quantity (32,000 digits and a `!` took
// 2.4 s, 4x as many 16x as long; now 0.2 ms).
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/;

/**
 * The value of `quantity` as a plain number (`"128Mi"` → 134217728, `"250m"` → 0.25). Undefined for
 * an absent or malformed quantity (never throws: cluster data is not trusted to be well formed).
 */
export function quantityValue(quantity: string | number | undefined | null): number | undefined {
  if (quantity === undefined || quantity === null) return undefined;
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  const match = QUANTITY.exec(quantity.trim());
  if (!match) return undefined;
  const [, number, exponent, suffix = ''] = match;
  const base = Number(number);
  if (exponent) return base * 10 ** Number(exponent.slice(1));
  if (suffix in DECIMAL) return base * 10 ** DECIMAL[suffix]!;
  if (suffix in BINARY) return base * 2 ** BINARY[suffix]!;
  return undefined;
}

/** CPU `quantity` in millicores, rounded up as `kubectl top` does (`"1500u"` → 2); undefined when unreadable. */
export function cpuMillicores(quantity: string | number | undefined | null): number | undefined {
  const value = quantityValue(quantity);
  return value === undefined ? undefined : Math.ceil(value * 1000 - 1e-9);
}

/** Memory `quantity` in MiB (2^20 bytes), to one decimal below 10 MiB, whole above; undefined when unreadable. */
export function memoryMiB(quantity: string | number | undefined | null): number | undefined {
  const value = quantityValue(quantity);
  if (value === undefined) return undefined;
  const mib = value / 2 ** 20;
  return mib < 10 ? Math.round(mib * 10) / 10 : Math.round(mib);
}
