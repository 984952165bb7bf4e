/**
 * The canonical form an object takes through the API server's decode → default → encode round
 * trip, for what the simulator serves: resource quantities in `resource.Quantity` canonical form
 * (`0.1` → `100m`), and empty lists and maps dropped where the Go types mark them `omitempty`
 * (`env: []`, `labels: {}`), so equal templates compare equal (`EqualIgnoreHash`) whatever their
 * spelling. Structs the Go encoder always writes (`resources: {}`, `securityContext: {}`) stay.
 */
import { canonicalQuantity } from './quantity.ts';
import { badRequest } from './status.ts';

/** Map-valued members (`map[string]…` with `omitempty`) whose values are quantities. */
const QUANTITY_MAPS = new Set(['limits', 'requests', 'capacity', 'allocatable', 'overhead']);
/** Single quantities: emptyDir `sizeLimit`, HPA metric targets and values. */
const QUANTITY_FIELDS = new Set(['sizeLimit', 'averageValue', 'value']);
/** Parents whose `value`/`averageValue` members are quantities (autoscaling/v2 MetricTarget, MetricValueStatus). */
const QUANTITY_FIELD_PARENTS = new Set(['target', 'current', 'emptyDir']);
/** Map-valued members with `omitempty`: dropped when empty. */
const OMITEMPTY_MAPS = new Set([
  'labels',
  'annotations',
  'nodeSelector',
  'matchLabels',
  'data',
  'binaryData',
  'stringData',
  ...QUANTITY_MAPS,
]);
/** List members serialized even when empty (no `omitempty` in the Go types). */
const KEEP_EMPTY_LISTS = new Set(['containers', 'rules', 'items']);
/** Opaque members left as sent. */
const OPAQUE = new Set(['fieldsV1']);

function quantity(value: unknown, path: string): unknown {
  if (typeof value !== 'string' && typeof value !== 'number') return value;
  try {
    return canonicalQuantity(value);
  } catch (error) {
    throw badRequest(`${path}: ${(error as Error).message}`);
  }
}

function walk(value: unknown, path: string, parentKey: string): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, `${path}[${index}]`, parentKey));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  for (const [key, member] of Object.entries(record)) {
    if (OPAQUE.has(key)) continue;
    const memberPath = path ? `${path}.${key}` : key;
    if (QUANTITY_MAPS.has(key) && member !== null && typeof member === 'object' && !Array.isArray(member)) {
      for (const [name, amount] of Object.entries(member as Record<string, unknown>))
        (member as Record<string, unknown>)[name] = quantity(amount, `${memberPath}.${name}`);
    } else if (QUANTITY_FIELDS.has(key) && QUANTITY_FIELD_PARENTS.has(parentKey)) {
      record[key] = quantity(member, memberPath);
    } else {
      walk(member, memberPath, key);
    }
    const now = record[key];
    if (Array.isArray(now) && now.length === 0 && !KEEP_EMPTY_LISTS.has(key)) delete record[key];
    else if (
      OMITEMPTY_MAPS.has(key) &&
      now !== null &&
      typeof now === 'object' &&
      !Array.isArray(now) &&
      Object.keys(now).length === 0
    )
      delete record[key];
  }
}

/**
 * Brings `object` (in place) to its canonical stored form: quantities canonicalised, empty
 * `omitempty` lists and maps removed.
 * @throws ApiError 400 naming the field when a quantity does not parse (as decoding does).
 */
export function canonicalize(object: Record<string, unknown>): void {
  walk(object, '', '');
}
