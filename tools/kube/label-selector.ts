/**
 * Kubernetes label selectors: parsing (to reject a bad selector before any API call, naming what is
 * wrong), matching labels against a parsed selector, and turning a `LabelSelector` object
 * (`matchLabels` / `matchExpressions`) into the string form.
 *
 * No maintained npm package parses Kubernetes selectors, so this mirrors the grammar of
 * k8s.io/apimachinery/pkg/labels (selector.go) in a small recursive-descent parser:
 *
 *   selector    ::= requirement ( "," requirement )*
 *   requirement ::= [ "!" ] KEY
 *                 | KEY ( "=" | "==" | "!=" ) VALUE
 *                 | KEY ( "in" | "notin" ) "(" VALUE ( "," VALUE )* ")"
 *                 | KEY ( ">" | "<" ) INTEGER
 *   KEY         ::= [ DNS-1123 subdomain (≤253) "/" ] name (≤63)
 *   VALUE       ::= "" | name (≤63)
 *   name        ::= [A-Za-z0-9] ( [-A-Za-z0-9_.]* [A-Za-z0-9] )?
 *
 * Whitespace between tokens is ignored, as in Kubernetes.
 */

/** One requirement of a selector, e.g. `{ key: 'app', operator: 'in', values: ['web', 'api'] }`. */
export interface LabelRequirement {
  key: string;
  operator: 'exists' | 'doesnotexist' | '=' | '!=' | 'in' | 'notin' | '>' | '<';
  values: string[];
}

/** Thrown for a selector that does not parse; `message` says where and why. */
export class LabelSelectorSyntaxError extends Error {
  override name = 'LabelSelectorSyntaxError';
}

const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const TOKEN = /\s*(==|!=|=|!|\(|\)|,|<|>|[^\s,()!=<>]+)/y;

/**
 * Parses a selector string into requirements. The empty string selects everything (no
 * requirements). Throws `LabelSelectorSyntaxError` naming the rule broken and where.
 */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  const tokens = tokenize(selector);
  const requirements: LabelRequirement[] = [];
  let i = 0;
  const peek = (): string | undefined => tokens[i];
  const next = (): string | undefined => tokens[i++];
  const expect = (what: string): string => {
    const token = next();
    if (token === undefined) throw new LabelSelectorSyntaxError(`expected ${what} but the selector ended`);
    return token;
  };
  if (tokens.length === 0) return requirements;
  for (;;) {
    requirements.push(parseRequirement());
    const separator = next();
    if (separator === undefined) return requirements;
    if (separator !== ',')
      throw new LabelSelectorSyntaxError(`expected ',' between requirements, found '${separator}'`);
  }

  function parseRequirement(): LabelRequirement {
    if (peek() === '!') {
      next();
      return { key: checkKey(expect('a label key after "!"')), operator: 'doesnotexist', values: [] };
    }
    const key = checkKey(expect('a label key'));
    const op = peek();
    if (op === undefined || op === ',') return { key, operator: 'exists', values: [] };
    next();
    switch (op) {
      case '=':
      case '==':
      case '!=': {
        const value = peek() === undefined || peek() === ',' ? '' : next()!;
        return { key, operator: op === '!=' ? '!=' : '=', values: [checkValue(value, key)] };
      }
      case 'in':
      case 'notin':
        return { key, operator: op, values: parseValueSet(key, op) };
      case '>':
      case '<': {
        const value = expect(`an integer after '${key} ${op}'`);
        if (!/^-?\d+$/.test(value)) {
          throw new LabelSelectorSyntaxError(
            `'${key} ${op} ${value}': the value of '${op}' must be an integer`,
          );
        }
        return { key, operator: op, values: [value] };
      }
      default:
        throw new LabelSelectorSyntaxError(
          `after key '${key}' expected one of '=', '==', '!=', 'in', 'notin', '>', '<' or ',', found '${op}'`,
        );
    }
  }

  function parseValueSet(key: string, op: string): string[] {
    if (next() !== '(') throw new LabelSelectorSyntaxError(`'${key} ${op}' must be followed by '(values)'`);
    const values: string[] = [];
    for (;;) {
      let token = expect(`a value or ')' in '${key} ${op} (...)'`);
      // An empty value, e.g. `in (a,,b)` or `in ()`, is the empty string, as in Kubernetes.
      let value = '';
      if (token !== ',' && token !== ')') {
        value = checkValue(token, key);
        token = expect(`',' or ')' in '${key} ${op} (...)'`);
      }
      values.push(value);
      if (token === ')') return values;
      if (token !== ',')
        throw new LabelSelectorSyntaxError(`expected ',' or ')' in '${key} ${op} (...)', found '${token}'`);
    }
  }
}

function tokenize(selector: string): string[] {
  const tokens: string[] = [];
  let position = 0;
  while (position < selector.length) {
    if (/^\s*$/.test(selector.slice(position))) break;
    TOKEN.lastIndex = position;
    const match = TOKEN.exec(selector);
    if (!match) throw new LabelSelectorSyntaxError(`unexpected character at position ${position}`);
    tokens.push(match[1]!);
    position = TOKEN.lastIndex;
  }
  return tokens;
}

/** Checks a label key: optional DNS-1123 subdomain prefix (≤253) and '/', then a name (≤63). */
function checkKey(key: string): string {
  if (['=', '==', '!=', '!', '(', ')', ',', '<', '>'].includes(key)) {
    throw new LabelSelectorSyntaxError(`expected a label key, found '${key}'`);
  }
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (
    prefix !== undefined &&
    (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
  ) {
    throw new LabelSelectorSyntaxError(
      `label key '${key}': the prefix before '/' must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'), at most 253 characters`,
    );
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    throw new LabelSelectorSyntaxError(
      `label key '${key}': the name must be 1-63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
    );
  }
  return key;
}

/** Checks a label value: empty, or 1-63 characters of letters, digits, '-', '_', '.', alphanumeric at both ends. */
function checkValue(value: string, key: string): string {
  if (value === '' || (value.length <= 63 && NAME.test(value))) return value;
  throw new LabelSelectorSyntaxError(
    `value '${value}' of label '${key}' must be at most 63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
  );
}

/** Whether `labels` satisfy every requirement (Kubernetes `Selector.Matches`). */
export function matchesLabels(
  labels: Record<string, string> | undefined,
  requirements: LabelRequirement[],
): boolean {
  const own = labels ?? {};
  return requirements.every(({ key, operator, values }) => {
    const has = Object.hasOwn(own, key);
    const value = own[key];
    switch (operator) {
      case 'exists':
        return has;
      case 'doesnotexist':
        return !has;
      case '=':
      case 'in':
        return has && values.includes(value!);
      case '!=':
      case 'notin':
        return !has || !values.includes(value!);
      case '>':
      case '<': {
        if (!has || !/^-?\d+$/.test(value!)) return false;
        const [left, right] = [Number(value), Number(values[0])];
        return operator === '>' ? left > right : left < right;
      }
    }
  });
}

/** A Kubernetes `LabelSelector` object (as in `Deployment.spec.selector`). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/**
 * The string form of a `LabelSelector` object, as `metav1.LabelSelectorAsSelector` renders it:
 * `matchLabels` as `k=v`, then `matchExpressions` (`In`, `NotIn`, `Exists`, `DoesNotExist`), sorted
 * by key. An empty selector gives the empty string (which selects everything).
 */
export function formatLabelSelector(selector: LabelSelectorObject | undefined): string {
  const parts: [string, string][] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {}))
    parts.push([key, `${key}=${value}`]);
  for (const { key, operator, values = [] } of selector?.matchExpressions ?? []) {
    const sorted = [...values].sort().join(',');
    const text: Record<string, string> = {
      In: `${key} in (${sorted})`,
      NotIn: `${key} notin (${sorted})`,
      Exists: key,
      DoesNotExist: `!${key}`,
    };
    parts.push([key, text[operator] ?? `${key} ${operator} (${sorted})`]);
  }
  return parts
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, text]) => text)
    .join(',');
}
