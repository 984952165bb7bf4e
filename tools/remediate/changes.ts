/**
 * What a remediation changes, item by item, for the human who approves it: every container image,
 * env var (values of secret-looking names redacted, others through the one redactor) and resource
 * request/limit, containers added or removed, any other container or pod spec field, and pod template
 * labels and annotations. Computed from the pod templates as the API server returns them, so nothing
 * that differs goes unlisted.
 */
import { z } from 'zod';
import { canonicalJson } from '../../core/index.ts';
import { templateWithoutHash, type Container, type PodTemplateSpec } from '../kube/index.ts';
import { oneLine } from '../format/index.ts';
import { isSecretName, redact, redactValue, REDACTED } from '../redact.ts';

const ScalarSchema = z.union([z.string(), z.number(), z.boolean()]).nullable();

export const CHANGE_KINDS = [
  'image',
  'env',
  'resources',
  'container',
  'pod_spec',
  'template_label',
  'template_annotation',
  'annotation',
  'replicas',
  'paused',
  'pod_deleted',
] as const;

/** One itemised change. `from`/`to` are `null` where the thing is absent before/after. */
export const ChangeSchema = z.object({
  kind: z.enum(CHANGE_KINDS),
  /** Container name for container-level changes. */
  container: z.string().optional(),
  /** Env var name, resource (`limits.memory`), field (`command`) or label/annotation key. */
  key: z.string().optional(),
  from: ScalarSchema,
  to: ScalarSchema,
  /** One line for people, e.g. `container app: image checkout:2.4.1 → checkout:2.4.0`. */
  text: z.string(),
});
export type Change = z.infer<typeof ChangeSchema>;
type Scalar = z.infer<typeof ScalarSchema>;

/** Longest `from`/`to` rendering of a structured value (command, probes, volumes), in characters. */
const MAX_VALUE_LENGTH = 200;

/** `(none)` for an absent value, else the value on one line. */
export function formatValue(value: Scalar): string {
  return value === null ? '(none)' : oneLine(String(value), MAX_VALUE_LENGTH);
}

/** A change with its text: `<where>: <what> <from> → <to>` (`<where>: <from> → <to>` without `what`). */
export function change(fields: Omit<Change, 'text'>, where: string, what = ''): Change {
  const subject = what ? `${what} ` : '';
  return { ...fields, text: `${where}: ${subject}${formatValue(fields.from)} → ${formatValue(fields.to)}` };
}

/** `name=image` for each container (init containers as `init:name=image`), the form used in effects. */
export function containerImages(template: PodTemplateSpec | undefined): string[] {
  const spec = template?.spec;
  return [
    ...(spec?.initContainers ?? []).map((c) => `init:${c.name}=${c.image ?? ''}`),
    ...(spec?.containers ?? []).map((c) => `${c.name}=${c.image ?? ''}`),
  ];
}

/** The images of the (non-init) containers, comma-separated, for summaries: `checkout:2.4.1, envoy:1.29`. */
export function imageList(template: PodTemplateSpec | undefined): string {
  const images = (template?.spec?.containers ?? []).map((c) => c.image ?? '(no image)');
  return oneLine(images.join(', '), 300) || '(no containers)';
}

/**
 * Every difference between two pod templates (the `pod-template-hash` label ignored), in this order:
 * containers (image, env, resources, other fields; added/removed), init containers, other pod spec
 * fields, template labels, template annotations. Missing, `null`, empty lists and empty maps count
 * as the same (Kubernetes' semantic equality).
 */
export function diffPodTemplates(
  from: PodTemplateSpec | undefined,
  to: PodTemplateSpec | undefined,
): Change[] {
  const a = normalize(templateWithoutHash(from)) as PodTemplateSpec;
  const b = normalize(templateWithoutHash(to)) as PodTemplateSpec;
  const { containers: ca, initContainers: ia, ...specA } = a.spec ?? { containers: [] };
  const { containers: cb, initContainers: ib, ...specB } = b.spec ?? { containers: [] };
  return [
    ...diffContainers('container', ca, cb),
    ...diffContainers('init container', ia, ib),
    ...diffFields(specA, specB).map((key) =>
      change(
        { kind: 'pod_spec', key, from: jsonValue(specA, key), to: jsonValue(specB, key) },
        'pod spec',
        key,
      ),
    ),
    ...diffStringMap('template_label', 'pod template label', a.metadata?.labels, b.metadata?.labels),
    ...diffStringMap(
      'template_annotation',
      'pod template annotation',
      a.metadata?.annotations,
      b.metadata?.annotations,
    ),
  ];
}

/**
 * Differences between two string maps (labels or annotations), key by key, sorted by key. Values
 * go through the redactor; keys with secret-looking names are redacted.
 */
export function diffStringMap(
  kind: Change['kind'],
  where: string,
  from: Record<string, string> | undefined,
  to: Record<string, string> | undefined,
): Change[] {
  const keys = [...new Set([...Object.keys(from ?? {}), ...Object.keys(to ?? {})])].sort();
  return keys
    .filter((key) => from?.[key] !== to?.[key])
    .map((key) => {
      const show = (value: string | undefined): Scalar =>
        value === undefined ? null : isSecretName(key) ? REDACTED : redact(value).value;
      return change({ kind, key, from: show(from?.[key]), to: show(to?.[key]) }, `${where} ${key}`);
    });
}

function diffContainers(
  label: 'container' | 'init container',
  from: Container[] | undefined,
  to: Container[] | undefined,
): Change[] {
  const before = new Map((from ?? []).map((c) => [c.name, c]));
  const after = new Map((to ?? []).map((c) => [c.name, c]));
  const changes: Change[] = [];
  for (const [name, b] of after) {
    const where = `${label} ${name}`;
    const a = before.get(name);
    if (!a) {
      changes.push({
        kind: 'container',
        container: name,
        from: null,
        to: b.image ?? null,
        text: `${where} added (image ${formatValue(b.image ?? null)})`,
      });
      continue;
    }
    if (a.image !== b.image) {
      changes.push(
        change(
          { kind: 'image', container: name, from: a.image ?? null, to: b.image ?? null },
          where,
          'image',
        ),
      );
    }
    changes.push(...diffEnv(where, name, a.env, b.env));
    changes.push(...diffResources(where, name, a.resources, b.resources));
    const { name: _a, image: _ai, env: _ae, resources: _ar, ...restA } = a;
    const { name: _b, image: _bi, env: _be, resources: _br, ...restB } = b;
    for (const key of diffFields(restA, restB)) {
      changes.push(
        change(
          { kind: 'container', container: name, key, from: jsonValue(restA, key), to: jsonValue(restB, key) },
          where,
          key,
        ),
      );
    }
  }
  for (const [name, a] of before) {
    if (after.has(name)) continue;
    changes.push({
      kind: 'container',
      container: name,
      from: a.image ?? null,
      to: null,
      text: `${label} ${name} removed (was image ${formatValue(a.image ?? null)})`,
    });
  }
  return changes;
}

type EnvVar = NonNullable<Container['env']>[number];

/** Canonical JSON to compare by, where an absent value differs from an explicit `null`. */
const comparable = (value: unknown) => (value === undefined ? undefined : canonicalJson(value));

function diffEnv(where: string, container: string, from: EnvVar[] | undefined, to: EnvVar[] | undefined) {
  // Kubernetes: a later entry with the same name wins.
  const before = new Map((from ?? []).map((e) => [e.name, e]));
  const after = new Map((to ?? []).map((e) => [e.name, e]));
  const names = [...new Set([...before.keys(), ...after.keys()])];
  const changes: Change[] = names
    .filter((name) => comparable(before.get(name)) !== comparable(after.get(name)))
    .map((name) =>
      change(
        {
          kind: 'env',
          container,
          key: name,
          from: envValue(before.get(name)),
          to: envValue(after.get(name)),
        },
        where,
        `env ${name}`,
      ),
    );
  const order = (list: EnvVar[] | undefined) => (list ?? []).map((e) => e.name).join('\u0000');
  if (changes.length === 0 && order(from) !== order(to)) {
    // Order matters for $(VAR) references, so a reordering is a change too.
    changes.push(
      change(
        {
          kind: 'env',
          container,
          key: '(order)',
          from: (from ?? []).map((e) => e.name).join(','),
          to: (to ?? []).map((e) => e.name).join(','),
        },
        where,
        'env order',
      ),
    );
  }
  return changes;
}

/** An env var's value for display: redacted when its name looks secret; `valueFrom` described. */
function envValue(env: EnvVar | undefined): Scalar {
  if (env === undefined) return null;
  if (env.valueFrom) {
    const from = env.valueFrom;
    if (from.secretKeyRef) return `from Secret ${from.secretKeyRef.name ?? ''} key ${from.secretKeyRef.key}`;
    if (from.configMapKeyRef)
      return `from ConfigMap ${from.configMapKeyRef.name ?? ''} key ${from.configMapKeyRef.key}`;
    if (from.fieldRef) return `from field ${from.fieldRef.fieldPath}`;
    if (from.resourceFieldRef) return `from resource ${from.resourceFieldRef.resource}`;
    return `from ${canonicalJson(redactValue(from).value)}`;
  }
  const value = env.value ?? '';
  if (value !== '' && isSecretName(env.name)) return REDACTED;
  return redact(value).value;
}

type Resources = Container['resources'];

function diffResources(where: string, container: string, from: Resources, to: Resources): Change[] {
  const changes: Change[] = [];
  for (const section of ['requests', 'limits'] as const) {
    const a = from?.[section] ?? {};
    const b = to?.[section] ?? {};
    for (const resource of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (a[resource] === b[resource]) continue;
      const key = `${section}.${resource}`;
      changes.push(
        change(
          { kind: 'resources', container, key, from: a[resource] ?? null, to: b[resource] ?? null },
          where,
          key,
        ),
      );
    }
  }
  const { requests: _ra, limits: _la, ...restA } = from ?? {};
  const { requests: _rb, limits: _lb, ...restB } = to ?? {};
  for (const key of diffFields(restA, restB)) {
    changes.push(
      change(
        {
          kind: 'resources',
          container,
          key,
          from: jsonValue(restA, key),
          to: jsonValue(restB, key),
        },
        where,
        `resources.${key}`,
      ),
    );
  }
  return changes;
}

/** Keys whose values differ between two objects, sorted. */
function diffFields(a: object, b: object): string[] {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  return [...new Set([...Object.keys(left), ...Object.keys(right)])]
    .filter((key) => comparable(left[key]) !== comparable(right[key]))
    .sort();
}

/** A field's value as compact, redacted JSON (strings as themselves), or `null` when absent. */
function jsonValue(object: object, key: string): Scalar {
  const value = (object as Record<string, unknown>)[key];
  if (value === undefined) return null;
  const redacted = redactValue(value).value;
  if (typeof redacted === 'string' || typeof redacted === 'number' || typeof redacted === 'boolean')
    return redacted;
  const text = canonicalJson(redacted);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 1)}…` : text;
}

/**
 * Plain JSON with `null`, empty lists and empty maps dropped (they mean "unset" to Kubernetes);
 * list elements keep their positions.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? value.map((item) => normalize(item) ?? null) : undefined;
  if (value === null) return undefined;
  if (typeof value !== 'object') return value;
  const entries = Object.entries(value)
    .map(([key, child]) => [key, normalize(child)] as const)
    .filter(([, child]) => child !== undefined);
  return entries.length ? Object.fromEntries(entries) : undefined;
}
