/**
 * `resource.Quantity` (k8s.io/apimachinery/pkg/api/resource/quantity.go): parsing and the canonical
 * string the API server stores and serves. `0.1` → `100m`, `0.5Gi` → `512Mi`, `1024Mi` → `1Gi`,
 * `1.5Ki` → `1536`, `2000` → `2k`, `1e3` → `1e3`, `0.0000000001` → `1n` (values are rounded up to
 * nano units). Arithmetic is exact (BigInt mantissa × 10^scale).
 */

/** The suffix family a quantity was written in, which its canonical form keeps where it can. */
type Format = 'DecimalExponent' | 'BinarySI' | 'DecimalSI';

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([suffix, exp]) => [exp, suffix]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** The API server's error text for a string that is not a quantity. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A parsed quantity: `mantissa × 10^scale` (scale >= -9 after parsing). */
export interface Quantity {
  mantissa: bigint;
  scale: number;
  format: Format;
}

const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;

/**
 * `ParseQuantity`. Accepts a string (`"0.1"`, `"512Mi"`, `"1e3"`) or a JSON number.
 * @throws Error with {@link QUANTITY_FORMAT_ERROR} for anything else.
 */
export function parseQuantity(input: string | number): Quantity {
  const text = typeof input === 'number' ? numberText(input) : input;
  const match = NUMBER.exec(text);
  if (!match || text === '' || (match[2] === '' && (match[3] ?? '') === ''))
    throw new Error(QUANTITY_FORMAT_ERROR);
  const [, sign, whole = '', fraction = '', suffix = ''] = match;
  let format: Format;
  let exponent10 = 0;
  let power2 = 0;
  if (suffix in DECIMAL_SUFFIXES) {
    format = 'DecimalSI';
    exponent10 = DECIMAL_SUFFIXES[suffix]!;
  } else if (suffix in BINARY_SUFFIXES) {
    format = 'BinarySI';
    power2 = BINARY_SUFFIXES[suffix]!;
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    exponent10 = Number.parseInt(suffix.slice(1), 10);
  } else {
    throw new Error(QUANTITY_FORMAT_ERROR);
  }
  let mantissa = BigInt(`${whole}${fraction}` || '0') * (sign === '-' ? -1n : 1n);
  let scale = exponent10 - fraction.length;
  if (power2 > 0) mantissa *= 1n << BigInt(power2);
  // Round non-zero values up (away from zero) to nano units: "if you want some, you get some".
  if (scale < -9 && mantissa !== 0n) {
    const divisor = 10n ** BigInt(-9 - scale);
    const quotient = mantissa / divisor;
    mantissa = quotient + (mantissa % divisor === 0n ? 0n : mantissa > 0n ? 1n : -1n);
    scale = -9;
  }
  // BinarySI below one cannot be written in binary suffixes.
  if (format === 'BinarySI' && absLessThan(mantissa, scale, 1n)) format = 'DecimalSI';
  return { mantissa, scale, format };
}

function numberText(value: number): string {
  if (!Number.isFinite(value)) throw new Error(QUANTITY_FORMAT_ERROR);
  // JSON numbers: plain decimal digits (no exponent) so the parser above reads them exactly.
  return value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** |mantissa × 10^scale| < limit. */
function absLessThan(mantissa: bigint, scale: number, limit: bigint): boolean {
  const abs = mantissa < 0n ? -mantissa : mantissa;
  return scale >= 0 ? abs * 10n ** BigInt(scale) < limit : abs < limit * 10n ** BigInt(-scale);
}

/** `CanonicalizeBytes`: the canonical string of a parsed quantity. */
export function formatQuantity(quantity: Quantity): string {
  let { mantissa, scale, format } = quantity;
  if (mantissa === 0n) return '0';
  if (format === 'BinarySI') {
    if (absLessThan(mantissa, scale, 1024n)) format = 'DecimalSI';
    else if (scale < 0) {
      const divisor = 10n ** BigInt(-scale);
      if (mantissa % divisor !== 0n) format = 'DecimalSI';
      else {
        mantissa /= divisor;
        scale = 0;
      }
    }
  }
  if (format === 'BinarySI') {
    let value = mantissa * 10n ** BigInt(scale);
    let power = 0;
    while (power < BINARY_BY_POWER.length - 1 && value % 1024n === 0n) {
      value /= 1024n;
      power++;
    }
    return `${value}${BINARY_BY_POWER[power]}`;
  }
  // AsCanonicalBytes: strip factors of ten, then lower the exponent to a multiple of three.
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    scale++;
  }
  const remainder = ((scale % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(remainder);
  scale -= remainder;
  if (format === 'DecimalExponent') return scale === 0 ? `${mantissa}` : `${mantissa}e${scale}`;
  return `${mantissa}${DECIMAL_BY_EXPONENT.get(scale) ?? `e${scale}`}`;
}

/** The canonical string of a quantity given as a string or number. @throws Error when not a quantity. */
export function canonicalQuantity(input: string | number): string {
  return formatQuantity(parseQuantity(input));
}
