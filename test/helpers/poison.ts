/**
 * fast-check arbitraries for hostile text, and `poison`, which writes it into the string fields of
 * Kubernetes objects (or a scenario) for the sanitizer's property tests.
 */
import fc from 'fast-check';

/** Single code points and sequences a hostile workload would use. */
const HOSTILE_UNITS = [
  '\u001b',
  '\u0007',
  '\u0000',
  '\u0008',
  '\r',
  '\n',
  '\t',
  '\u007f',
  '\u0085',
  '\u009b',
  '\u009d',
  '\u001b[8m',
  '\u001b[2J',
  '\u001b]0;pwned\u0007',
  '\u001b]8;;http://evil\u001b\\',
  '\u001bP+q\u001b\\',
  '\u009b31m',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\u200e',
  '\u200f',
  '\u061c',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u2061',
  '\u2064',
  '\ufeff',
  '\u00ad',
  '\u2028',
  '\u2029',
  '\u180e',
  '\u{e0001}',
  '\u{e0041}',
  '\u{e007f}',
  '\u3164',
  '\u115f',
  '\u034f',
  '\ud800',
  '\udfff',
];

/**
 * Strings mixing hostile units with arbitrary code points (any plane, surrogates included) and
 * plain text, up to `maxLength` units.
 */
export function hostileText(maxLength = 12): fc.Arbitrary<string> {
  return fc.string({
    unit: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_UNITS) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
      {
        weight: 2,
        arbitrary: fc.constantFrom('a', 'checkout', ' ', '-', ':', '2.4.0', '`', '*', '<b>', '&', '"'),
      },
    ),
    minLength: 1,
    maxLength,
  });
}

/** What to do with one string field. */
export interface Injection {
  mode: 'keep' | 'append' | 'prefix' | 'replace';
  text: string;
}

/** Injections, applied to the string fields in turn (cyclically). */
export function injections(): fc.Arbitrary<Injection[]> {
  return fc.array(
    fc.record({
      mode: fc.constantFrom('keep', 'keep', 'keep', 'append', 'prefix', 'replace', 'append'),
      text: hostileText(),
    }),
    { minLength: 1, maxLength: 60 },
  );
}

/**
 * Fields left alone: timestamps (a hostile one only makes the typed client reject the object) and
 * uids (the API server generates them); `_at` times of approval records.
 */
export const SKIPPED = /(Timestamp|Time|At|_at)$|^time$|^uid$/;

/**
 * A deep copy of `value` with each string field (and each label/annotation key) changed by the next
 * injection: kept, appended to, prefixed or replaced. Fields whose key matches `skip` (default
 * `SKIPPED`) keep their value.
 */
export function poison<T>(value: T, plan: readonly Injection[], skip: RegExp = SKIPPED): T {
  let next = 0;
  const inject = (text: string): string => {
    const step = plan[next++ % plan.length]!;
    switch (step.mode) {
      case 'keep':
        return text;
      case 'append':
        return `${text}${step.text}`;
      case 'prefix':
        return `${step.text}${text}`;
      case 'replace':
        return step.text;
    }
  };
  const walk = (item: unknown, key: string | undefined, isMap: boolean): unknown => {
    if (typeof item === 'string') return key !== undefined && skip.test(key) ? item : inject(item);
    if (Array.isArray(item)) return item.map((entry) => walk(entry, key, false));
    if (typeof item !== 'object' || item === null) return item;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item)) {
      const name = isMap ? inject(k) : k;
      out[name] = walk(v, k, k === 'labels' || k === 'annotations');
    }
    return out;
  };
  return walk(value, undefined, false) as T;
}
