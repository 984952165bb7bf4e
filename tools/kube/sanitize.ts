/**
 * The Kubernetes layer's boundary: every object, log and message read from the cluster passes
 * through `sanitizeFromCluster` before any tool sees it, so names, label and annotation keys and
 * values, images, env values, commands, messages, reasons, change-causes, conditions, events and
 * logs reach tool text, `structuredContent`, the gate's previews and every renderer (CLI, approvals
 * page, notifications, the model) with their control, escape, bidi and invisible code points
 * replaced by visible escapes (`sanitizeText`, tools/format/text.ts).
 *
 * Which strings keep `\n` and `\t`: free text that is multi-line by nature — log text, the values
 * of `message`, `note` and env `value` fields, annotation values. Every other string (names,
 * images, reasons, keys, ...) is single-line: a newline there would let it forge a line of a report
 * or of the approval block, so it is escaped (`\x0a`).
 *
 * Writes must not carry the escapes back to the cluster: an object read "as sent" (for a rollback's
 * pod template) is sanitized as a copy, and `unsanitized(copy)` returns what the API server sent.
 */
import { sanitizeText } from '../format/text.ts';
import type { KubeReader, KubeWriter } from './types.ts';
import { sanitizingWorkloadReader, sanitizingWorkloadWriter } from './workloads.ts';

/** Object keys whose string values (or array of strings) are multi-line free text. */
const MULTILINE_KEYS: ReadonlySet<string> = new Set(['message', 'note', 'value']);
/** Maps whose values are multi-line free text (their keys are single-line). */
const MULTILINE_MAPS: ReadonlySet<string> = new Set(['annotations']);

/** Copies made by `sanitizedCopy`, to the object the API server sent. */
const originals = new WeakMap<object, object>();

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/**
 * Sanitizes, in place, every string in `value` — object values at any depth, array items and object
 * keys — and returns it (a string is returned sanitized). `Date`s and other non-string leaves are
 * kept. `multiline` says whether a top-level string keeps `\n`/`\t` (log text: yes).
 */
export function sanitizeFromCluster<T>(value: T, multiline = false): T {
  if (typeof value === 'object' && value !== null && alreadySafe.has(value)) return value;
  return walk(value, multiline) as T;
}

/**
 * Values parsed from JSON text in which no string can hold a code point `sanitizeText` replaces
 * (`parseFromCluster`), so sanitizing them would change nothing: `sanitizeFromCluster` returns them
 * as they are, `sanitizedCopy` only copies. Most answers of an API server are such text; walking a
 * 50-Pod list string by string was as costly as parsing it.
 */
const alreadySafe = new WeakSet<object>();

/**
 * In JSON text: an escape other than `\"`, `\\` and `\/` (which stand for printable ASCII). A false
 * alarm (`\\n`: an escaped backslash, then `n`) only means the walk runs.
 */
const UNSAFE_ESCAPE = /\\[^"\\/]/;

/**
 * Whether valid JSON `text` holds only printable ASCII strings and keys, so that no string parsed
 * from it can hold a code point `sanitizeText` replaces. Valid JSON has no raw control character
 * (U+0000–U+001F) anywhere but the whitespace between tokens, so what is left to rule out is a
 * character outside ASCII (the UTF-8 length differs from the UTF-16 length exactly then), DEL
 * (U+007F, allowed raw in a JSON string) and an escape other than `\"`, `\\`, `\/`. Scans with
 * `Buffer.byteLength` and `indexOf` (native, vectorised) and runs the escape regex only when the
 * text has a backslash: ~5x cheaper than one regex over a 120 KB list of Pods.
 */
function isPrintableAsciiJson(text: string): boolean {
  return (
    Buffer.byteLength(text, 'utf8') === text.length &&
    !text.includes('\x7f') &&
    (!text.includes('\\') || !UNSAFE_ESCAPE.test(text))
  );
}

/**
 * `JSON.parse(text)`, remembering a parsed object or array as needing no sanitizing when the text
 * shows none of its strings can (see `alreadySafe`, `isPrintableAsciiJson`). Throws what
 * `JSON.parse` throws.
 */
export function parseFromCluster(text: string): unknown {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed === 'object' && parsed !== null && isPrintableAsciiJson(text)) alreadySafe.add(parsed);
  return parsed;
}

/** Whether `value` came from `parseFromCluster` (or `markSafeAs`) as needing no sanitizing. */
export function isAlreadySafe(value: unknown): boolean {
  return typeof value === 'object' && value !== null && alreadySafe.has(value);
}

/**
 * Remembers `values` (and, when given, the array holding them) as needing no sanitizing: for the
 * items of list pages that were each `isAlreadySafe`, gathered into one array.
 */
export function markAlreadySafe(values: readonly unknown[], array?: object): void {
  for (const value of values) if (typeof value === 'object' && value !== null) alreadySafe.add(value);
  if (array) alreadySafe.add(array);
}

function walk(value: unknown, multiline: boolean): unknown {
  if (typeof value === 'string') return sanitizeText(value, { multiline });
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], multiline);
    return value;
  }
  if (!isPlainRecord(value)) return value;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const cleanKey = sanitizeText(key);
    const free = MULTILINE_KEYS.has(key);
    const cleaned = MULTILINE_MAPS.has(key) && isPlainRecord(item) ? walkMap(item) : walk(item, free);
    if (cleanKey !== key) {
      delete value[key];
      value[cleanKey] = cleaned;
    } else if (cleaned !== item) {
      value[key] = cleaned;
    }
  }
  return value;
}

/** A string map (annotations): single-line keys, multi-line values. */
function walkMap(map: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(map)) {
    const cleanKey = sanitizeText(key);
    const cleaned = walk(map[key], true);
    if (cleanKey !== key) delete map[key];
    map[cleanKey] = cleaned;
  }
  return map;
}

/**
 * A sanitized deep copy of a JSON object the API server sent; `unsanitized(copy)` returns `sent`
 * itself. For objects a write is built from (a rollback copies a ReplicaSet's pod template).
 */
export function sanitizedCopy<T extends object>(sent: T): T {
  const copy = cloneJson(sent);
  if (!alreadySafe.has(sent)) sanitizeFromCluster(copy);
  originals.set(copy, sent);
  return copy;
}

/**
 * A deep copy, as `structuredClone` makes it, of a value parsed from JSON (plain objects, arrays,
 * strings, numbers, booleans, null; `Date`s too), walking it directly — several times faster than
 * `structuredClone`'s serialize-and-deserialize for such values. Anything else inside (a class
 * instance, a Map) is copied by `structuredClone`. Shared references become separate copies, as JSON
 * has none.
 */
function cloneJson<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key]);
    // JSON.parse makes `__proto__` an own key; assigning it would set the copy's prototype instead.
    if (key === '__proto__') {
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    } else copy[key] = item;
  }
  return copy as T;
}

/**
 * The object as the API server sent it, before sanitizing, for building a write (never for
 * display); an object that did not come from `sanitizedCopy` (a test's fake reader) is returned
 * as it is.
 */
export function unsanitized<T extends object>(object: T): T {
  return (originals.get(object) as T | undefined) ?? object;
}

/**
 * `reader` with every result sanitized (`sanitizeFromCluster`; logs keep their newlines; objects
 * read as sent are `sanitizedCopy`s). The one place cluster data enters Sentinel: `createKubeClient`
 * returns only this.
 */
export function sanitizingReader(reader: KubeReader): KubeReader {
  const clean = sanitizeFromCluster;
  return Object.freeze({
    cluster: reader.cluster,
    getVersion: async () => clean(await reader.getVersion()),
    listNamespaces: async (options) => clean(await reader.listNamespaces(options)),
    getDeployment: async (namespace, name) => clean(await reader.getDeployment(namespace, name)),
    listDeployments: async (namespace, options) => clean(await reader.listDeployments(namespace, options)),
    listReplicaSets: async (namespace, options) => clean(await reader.listReplicaSets(namespace, options)),
    getDeploymentAsSent: async (namespace, name) =>
      sanitizedCopy(await reader.getDeploymentAsSent(namespace, name)),
    listReplicaSetsAsSent: async (namespace, options) =>
      (await reader.listReplicaSetsAsSent(namespace, options)).map((item) => sanitizedCopy(item)),
    getPod: async (namespace, name) => clean(await reader.getPod(namespace, name)),
    listPods: async (namespace, options) => clean(await reader.listPods(namespace, options)),
    readPodLog: async (namespace, name, options) =>
      clean(await reader.readPodLog(namespace, name, options), true),
    getService: async (namespace, name) => clean(await reader.getService(namespace, name)),
    listServices: async (namespace, options) => clean(await reader.listServices(namespace, options)),
    listEvents: async (namespace, options) => clean(await reader.listEvents(namespace, options)),
    listEventsV1: async (namespace, options) => clean(await reader.listEventsV1(namespace, options)),
    listHorizontalPodAutoscalers: async (namespace, options) =>
      clean(await reader.listHorizontalPodAutoscalers(namespace, options)),
    listPodMetrics: async (namespace, options) => clean(await reader.listPodMetrics(namespace, options)),
    ...sanitizingWorkloadReader(reader),
  } satisfies KubeReader);
}

/** `writer` with the objects the API server answers a write with sanitized (they are shown as the outcome). */
export function sanitizingWriter(writer: KubeWriter): KubeWriter {
  const clean = sanitizeFromCluster;
  return Object.freeze({
    patchDeploymentJson: async (namespace, name, operations, options) =>
      clean(await writer.patchDeploymentJson(namespace, name, operations, options)),
    patchDeploymentStrategic: async (namespace, name, patch, options) =>
      clean(await writer.patchDeploymentStrategic(namespace, name, patch, options)),
    patchDeploymentScale: async (namespace, name, patch, options) =>
      clean(await writer.patchDeploymentScale(namespace, name, patch, options)),
    ...sanitizingWorkloadWriter(writer),
  } satisfies KubeWriter);
}
