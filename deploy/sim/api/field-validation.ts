/**
 * Server-side field validation (`fieldValidation=Ignore|Warn|Strict`, the API server's default is
 * Warn): fields of a request's object that the kind's schema (`schemas.ts`) does not declare. Strict
 * answers 400 in the wording of the apiserver's strict decoder (`Deployment in version "v1" cannot be
 * handled as a Deployment: strict decoding error: unknown field "spec.replica"`); Warn sends one
 * `Warning` header per field; open subtrees (`x-kubernetes-preserve-unknown-fields`) accept anything.
 * Duplicate fields are not detected (the body is parsed before validation sees it).
 */
import type { ResourceType } from '../resources.ts';
import { DEFINITIONS, definitionNameFor, resolve } from './schemas.ts';
import type { Schema } from './schemas.ts';
import { badRequest } from './status.ts';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The directive of a request's `fieldValidation` (default Warn). @throws ApiError 400 for another value. */
export function fieldValidationOf(params: URLSearchParams): FieldValidation {
  const value = params.get('fieldValidation');
  if (value === null || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw badRequest(
    `fieldValidation: Unsupported value: "${value}": supported values: "Ignore", "Strict", "Warn"`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function walk(value: unknown, schema: Schema, path: string, out: string[]): void {
  const node = resolve(schema);
  if (node['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (node.items) value.forEach((item, index) => walk(item, node.items!, `${path}[${index}]`, out));
    return;
  }
  if (!isPlainObject(value)) return;
  if (node.properties) {
    for (const [key, child] of Object.entries(value)) {
      const field = node.properties[key];
      const at = path ? `${path}.${key}` : key;
      if (!field) out.push(at);
      else walk(child, field, at, out);
    }
  } else if (node.additionalProperties) {
    for (const [key, child] of Object.entries(value)) {
      walk(child, node.additionalProperties, `${path}[${key}]`, out);
    }
  }
}

/**
 * The undeclared fields of `object` (paths like `spec.template.spec.containers[0].imagee`), ignoring
 * `status` (a write through the main resource drops it anyway). Unknown kinds have none.
 */
export function unknownFields(type: ResourceType, object: unknown): string[] {
  const name = definitionNameFor(type.group, type.version, type.kind);
  const schema = name ? DEFINITIONS.get(name) : undefined;
  if (!schema || !isPlainObject(object)) return [];
  const { status: _status, ...rest } = object;
  const out: string[] = [];
  walk(rest, schema, '', out);
  return out;
}

/**
 * Checks `object` under `directive`: returns the warnings to send (Warn), nothing (Ignore, or no
 * unknown field). @throws ApiError 400 (Strict) naming every unknown field.
 */
export function validateFields(type: ResourceType, object: unknown, directive: FieldValidation): string[] {
  if (directive === 'Ignore') return [];
  const unknown = unknownFields(type, object);
  if (unknown.length === 0) return [];
  if (directive === 'Strict') {
    throw badRequest(
      `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: strict decoding error: ${unknown
        .map((field) => `unknown field "${field}"`)
        .join(', ')}`,
    );
  }
  return unknown.map((field) => `unknown field "${field}"`);
}
