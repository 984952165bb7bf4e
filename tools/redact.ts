/**
 * The one redactor. Everything that leaves the server — tool output, previews, approval records,
 * audit, notifications — passes through `redact` (text) or `redactValue` (JSON-like values).
 *
 * It removes: private key blocks; bearer and basic `Authorization` credentials; passwords in URLs
 * (`scheme://user:password@host`); cloud and service keys (AWS access key ids, GCP API keys, Azure
 * SAS signatures, GitHub and Slack tokens, JWTs); `password=…` / `token: …`-style pairs; and the
 * values of environment variables and object keys with secret-looking names (PASSWORD, SECRET,
 * TOKEN, KEY, CREDENTIAL, …). It reports how many values it removed. Redacting twice changes
 * nothing more and counts nothing more. Every rule runs in time linear (or n log n) in the text, so a
 * hostile string from the cluster (a 1 MB log line) cannot hold the server's thread.
 */
import { replacePrivateKeyBlocks } from './private-key-blocks.ts';

/** What replaces a removed value. */
export const REDACTED = '[REDACTED]';

/** A redacted value and how many secrets were removed from it. */
export interface Redacted<T> {
  value: T;
  redactions: number;
}

/** Words that make a name secret wherever they appear (`DB_PASSWORD`, `apiToken`, `client-secret`). */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'secret',
  'secrets',
  'token',
  'credential',
  'credentials',
  'apikey',
  'privatekey',
  'accesskey',
  'secretkey',
]);
/** Adjacent word pairs that make a name secret (`API_KEY`, `privateKey`, `ACCESS-KEY`). */
const SECRET_PAIRS = new Set([
  'api key',
  'access key',
  'private key',
  'secret key',
  'signing key',
  'encryption key',
]);
/** Words that make an env var or object key secret, but are too common in free text (`key=app`). */
const NAME_ONLY_WORDS = new Set(['key', 'auth', 'cookie', 'salt', 'signature', 'dsn']);
/** A last word that makes the name a reference to a secret, not the secret (`secretName`, `TOKEN_PATH`). */
const REFERENCE_WORDS = new Set([
  'name',
  'names',
  'ref',
  'path',
  'file',
  'dir',
  'ttl',
  'expiry',
  'expires',
  'expiration',
  'count',
  'length',
  'size',
  'hint',
  'type',
  'kind',
  'mode',
  'format',
  'seconds',
  'enabled',
]);

/** `DB_PASSWORD` → [db, password]; `apiKey` → [api, key]; `x-auth-token` → [x, auth, token]. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

function looksSecret(name: string, extraWords: ReadonlySet<string> | undefined): boolean {
  const words = wordsOf(name);
  const last = words.at(-1);
  if (last === undefined || REFERENCE_WORDS.has(last)) return false;
  return words.some(
    (word, i) =>
      SECRET_WORDS.has(word) ||
      extraWords?.has(word) ||
      (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${word}`)),
  );
}

/**
 * `isSecretName` of the names seen so far: objects from the cluster repeat the same few hundred keys
 * and env names (`metadata`, `containerPort`, …) on every read, and splitting each into words was
 * most of what redacting a Deployment cost. Bounded (cleared when full); the answer is a pure
 * function of the name.
 */
const secretNames = new Map<string, boolean>();
const MAX_REMEMBERED_NAMES = 10_000;

/**
 * Whether an environment variable or object key name looks like it holds a secret (PASSWORD,
 * SECRET, TOKEN, KEY, CREDENTIAL, AUTH, ... as a word of the name), so its value is redacted.
 * Names ending in a reference word (`secretName`, `TOKEN_FILE`, `keyRef`) are not secrets.
 */
export function isSecretName(name: string): boolean {
  let secret = secretNames.get(name);
  if (secret === undefined) {
    secret = looksSecret(name, NAME_ONLY_WORDS);
    if (secretNames.size >= MAX_REMEMBERED_NAMES) secretNames.clear();
    secretNames.set(name, secret);
  }
  return secret;
}

/** Object keys: like `isSecretName`, except a key named just `key` (selectors, tolerations, secretKeyRef) is not a secret. */
function isSecretKey(key: string): boolean {
  return key.toLowerCase() !== 'key' && isSecretName(key);
}

/** `isSecretPairName` of the names seen so far (kubelet messages repeat `container=`, `pod=`, …), bounded as `secretNames`. */
const secretPairNames = new Map<string, boolean>();

/** The narrower test for `name=value` pairs found in free text (no bare `key`/`auth`). */
function isSecretPairName(name: string): boolean {
  let secret = secretPairNames.get(name);
  if (secret === undefined) {
    secret = looksSecret(name, undefined);
    if (secretPairNames.size >= MAX_REMEMBERED_NAMES) secretPairNames.clear();
    secretPairNames.set(name, secret);
  }
  return secret;
}

/**
 * One redaction: a pattern and what each match becomes, or (`replaceAll`) a function doing both
 * where no regular expression runs in linear time.
 */
export type Rule = {
  /**
   * Found in any text the pattern matches (a literal every match contains): text without it is
   * skipped, with the same result. test/tools/redact.test.ts checks `redact` against `redactByRules`.
   */
  needs: RegExp;
} & (
  | { pattern: RegExp; replace: (match: string, ...groups: string[]) => string }
  | { replaceAll: (text: string) => { value: string; count: number } }
);

const keep =
  (...parts: number[]) =>
  (_match: string, ...groups: string[]) =>
    parts.map((i) => (i === 0 ? REDACTED : groups[i - 1])).join('');

const ALREADY = '(?!\\[REDACTED\\])';

/** Ordered: whole blocks first, then credentials with a recognisable shape, then `name=value` pairs. */
export const REDACTION_RULES: readonly Rule[] = [
  // PEM private key blocks (private-key-blocks.ts: the regular expression for them is quadratic).
  {
    needs: /-----BEGIN /,
    replaceAll: (text) => replacePrivateKeyBlocks(text, `${REDACTED} private key`),
  },
  // `Authorization: Bearer x`, `Bearer x`, `Basic x`.
  {
    pattern: new RegExp(`\\b(Bearer|Basic)(\\s+)${ALREADY}[A-Za-z0-9\\-._~+/]{8,}=*`, 'g'),
    needs: /Bearer|Basic/,
    replace: keep(1, 2, 0),
  },
  // scheme://user:password@host. The match starts at `://`, the scheme checked behind it: started at
  // every letter, as `\b[a-z][a-z0-9+.-]*://` is, it rescanned a long run of `a.b.c…` at each of
  // them (quadratic: 8,000 characters took 124 ms, 100,000 would take seconds).
  {
    pattern: new RegExp(`(?=://)(?<=\\b[a-z][a-z0-9+.-]*)(://[^/\\s:@]+:)${ALREADY}[^/\\s@]+(@)`, 'gi'),
    needs: /:\/\//,
    replace: keep(1, 0, 2),
  },
  // AWS access key ids.
  {
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g,
    needs: /AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA/,
    replace: () => REDACTED,
  },
  // Google API keys.
  { pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, needs: /AIza/, replace: () => REDACTED },
  // Azure SAS signatures in URLs and connection strings.
  { pattern: new RegExp(`\\b(sig=)${ALREADY}[A-Za-z0-9%+/=]+`, 'g'), needs: /sig=/, replace: keep(1, 0) },
  // GitHub and Slack tokens.
  {
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|xox[abposr]-[A-Za-z0-9-]{10,})\b/g,
    needs: /gh[pousr]_|github_pat_|xox[abposr]-/,
    replace: () => REDACTED,
  },
  // JWTs (three base64url parts, the first two JSON objects).
  {
    pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g,
    needs: /eyJ/,
    replace: () => REDACTED,
  },
  // Env entries serialised as JSON: {"name":"DB_PASSWORD","value":"hunter2"}.
  {
    pattern: /("name"\s*:\s*"([^"]*)"\s*,\s*"value"\s*:\s*")((?:[^"\\]|\\.)*)(")/g,
    needs: /"name"/,
    replace: (match, prefix, name, value, quote) =>
      isSecretName(name!) && value !== REDACTED && value !== '' ? `${prefix}${REDACTED}${quote}` : match,
  },
  // Env entries as YAML: `name: DB_PASSWORD` followed by `value: hunter2`.
  {
    pattern: /(\bname:[ \t]*["']?([\w.-]+)["']?[ \t]*\r?\n[ \t]*value:[ \t]*)(\S[^\n]*)/g,
    needs: /name:/,
    replace: (match, prefix, name, value) =>
      isSecretName(name!) && value !== REDACTED ? `${prefix}${REDACTED}` : match,
  },
  // password=x, "token": "x", api_key: x, --client-secret=x (quoted or bare values). A name starts
  // at a letter with no letter before it in the same run of [\w.-] (a later start could not match
  // where that letter did not): without the lookbehind every letter of a long token restarted the
  // scan of the token (quadratic: a 100,000-character base64 line took 30 s).
  {
    pattern:
      /(["']?)(?=[A-Za-z])(?<![A-Za-z][\w.-]*?)([A-Za-z][\w.-]*)\1(\s*[:=]\s*)(\[REDACTED\]|"(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&"'}\]]+)/g,
    needs: /[:=]/,
    replace: (match, open, name, separator, value) => {
      if (!isSecretPairName(name!)) return match;
      const quote = value!.startsWith('"') || value!.startsWith("'") ? value![0] : '';
      const inner = quote ? value!.slice(1, -1) : value;
      if (inner === REDACTED || inner === '') return match;
      // `(token=abc)`: a closing parenthesis with no opening one in the value is punctuation, not secret.
      const close = !quote && value!.endsWith(')') && !value!.includes('(') ? ')' : '';
      return `${open}${name}${open}${separator}${quote}${REDACTED}${quote}${close}`;
    },
  },
];

/**
 * Matches wherever some rule could: the union of the rules' `needs`. Text without any of them is
 * returned as it is without running the rules — most strings of a Kubernetes object (names, labels,
 * reasons) — with the same result they would give.
 */
const COULD_MATCH = new RegExp(REDACTION_RULES.map((rule) => rule.needs.source).join('|'));

/**
 * Redacts secrets in a piece of text. Runs only the rules whose `needs` the text (as redacted so
 * far) contains — a timestamp's `:` runs the `name: value` rule alone — which gives what running
 * every rule gives (`redactByRules`).
 */
export function redact(text: string): Redacted<string> {
  if (!COULD_MATCH.test(text)) return { value: text, redactions: 0 };
  return applyRules(text, true);
}

/** `redact` without its shortcuts: every rule runs on the text (for tests). */
export function redactByRules(text: string): Redacted<string> {
  return applyRules(text, false);
}

function applyRules(text: string, skipUnneeded: boolean): Redacted<string> {
  let redactions = 0;
  let value = text;
  for (const rule of REDACTION_RULES) {
    if (skipUnneeded && !rule.needs.test(value)) continue;
    if ('replaceAll' in rule) {
      const replaced = rule.replaceAll(value);
      value = replaced.value;
      redactions += replaced.count;
      continue;
    }
    value = value.replace(rule.pattern, (...args: unknown[]) => {
      const groups = args.slice(1, -2) as string[];
      const replaced = rule.replace(args[0] as string, ...groups);
      if (replaced !== args[0]) redactions++;
      return replaced;
    });
  }
  return { value, redactions };
}

/**
 * Redacts a JSON-like value deeply (objects, arrays, strings): strings through `redact`; the string
 * value of a key with a secret-looking name; the `value` of a `{ name, value }` pair whose name looks
 * secret (Kubernetes env vars). Returns a copy; the input is not modified.
 */
export function redactValue<T>(input: T): Redacted<T> {
  let redactions = 0;
  const visit = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const result = redact(node);
      redactions += result.redactions;
      return result.value;
    }
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object' || node instanceof Date) return node;
    const record = node as Record<string, unknown>;
    const envSecret =
      typeof record.name === 'string' && typeof record.value === 'string' && isSecretName(record.name);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(record)) {
      if (typeof child === 'string' && ((envSecret && key === 'value') || isSecretKey(key))) {
        if (child !== REDACTED && child !== '') redactions++;
        out[key] = child === '' ? child : REDACTED;
      } else {
        out[key] = visit(child);
      }
    }
    return out;
  };
  return { value: visit(input) as T, redactions };
}
