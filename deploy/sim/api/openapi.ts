/**
 * The OpenAPI documents of the served kinds, built from `schemas.ts` and the resource list:
 * - `/openapi/v3`: the root, one `serverRelativeURL` (with a content hash) per group version;
 * - `/openapi/v3/api/v1`, `/openapi/v3/apis/<group>/<version>`: OpenAPI 3.0 documents with the
 *   paths (every operation tagged with `x-kubernetes-action` and `x-kubernetes-group-version-kind`)
 *   and the component schemas those paths reach;
 * - `/openapi/v2`: one Swagger 2.0 document with every path and definition, served as JSON.
 *
 * kubectl 1.32 reads v3 first: `kubectl explain` walks the component schemas of the group version,
 * and `kubectl apply|create|replace` (validation on) looks for the `fieldValidation` query parameter
 * on the kind's PATCH operation; finding it, kubectl leaves validation to the server
 * (`fieldValidation=Strict`) and never needs v2. kubectl asks for v2 only as protobuf
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), which is not served: such a request
 * gets 406, JSON clients get the document.
 */
import { createHash } from 'node:crypto';
import { SIMULATED_VERSION } from '../cluster.ts';
import { RESOURCE_TYPES, groupVersion } from '../resources.ts';
import type { ResourceType } from '../resources.ts';
import { DEFINITIONS, definitionNameFor } from './schemas.ts';
import type { Schema } from './schemas.ts';

type Json = Record<string, unknown>;
type Flavour = 'v2' | 'v3';

const PATCH_TYPES = [
  'application/apply-patch+yaml',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
];

const query = (name: string, description: string, type = 'string'): Json => ({
  name,
  in: 'query',
  description,
  type,
  uniqueItems: true,
});
const DRY_RUN = query(
  'dryRun',
  'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
);
const FIELD_MANAGER = query(
  'fieldManager',
  'fieldManager is a name associated with the actor or entity that is making these changes.',
);
const FIELD_VALIDATION = query(
  'fieldValidation',
  'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn (the default) - Strict',
);
const FORCE = query(
  'force',
  'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
  'boolean',
);
const PRETTY = query('pretty', "If 'true', then the output is pretty printed.");

/** Converts a schema node to the flavour's wire form (`$ref` paths, v3's `allOf` wrapping). */
function render(schema: Schema, flavour: Flavour): Json {
  const { $ref, properties, items, additionalProperties, ...rest } = schema;
  const out: Json = { ...rest };
  if (flavour === 'v3' && schema.format === 'int-or-string') {
    delete out['type'];
    out['oneOf'] = [{ type: 'integer' }, { type: 'string' }];
  }
  if (properties) {
    out['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, render(child, flavour)]),
    );
  }
  if (items) out['items'] = render(items, flavour);
  if (additionalProperties) out['additionalProperties'] = render(additionalProperties, flavour);
  if ($ref) {
    const target = refPath($ref, flavour);
    if (flavour === 'v2') return { ...out, $ref: target };
    return { ...out, allOf: [{ $ref: target }] };
  }
  return out;
}

function refPath(name: string, flavour: Flavour): string {
  return flavour === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}`;
}

/** The definitions `names` reach through `$ref`s, themselves included. */
function closure(names: Iterable<string>): Set<string> {
  const seen = new Set<string>();
  const visit = (schema: Schema | undefined): void => {
    if (!schema) return;
    if (schema.$ref && !seen.has(schema.$ref)) {
      seen.add(schema.$ref);
      visit(DEFINITIONS.get(schema.$ref));
    }
    for (const child of Object.values(schema.properties ?? {})) visit(child);
    visit(schema.items);
    visit(schema.additionalProperties);
  };
  for (const name of names) visit({ $ref: name });
  return seen;
}

interface PathOperation {
  action: 'get' | 'list' | 'watch' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Definition of the request and 200 body (undefined: text, e.g. logs). */
  body?: string;
  response?: string;
  gvk: { group: string; version: string; kind: string };
  description: string;
}

function operationsOf(type: ResourceType, definition: string) {
  const gvk = { group: type.group, version: type.version, kind: type.kind };
  const prefix = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  const base = type.namespaced
    ? `${prefix}/namespaces/{namespace}/${type.plural}`
    : `${prefix}/${type.plural}`;
  const has = (verb: string) => type.verbs.includes(verb);
  const paths: Record<string, PathOperation[]> = {};
  const add = (path: string, operation: PathOperation) => (paths[path] ??= []).push(operation);
  const list = `${definition}List`;
  if (has('list'))
    add(base, {
      action: 'list',
      method: 'get',
      response: list,
      gvk,
      description: `list or watch objects of kind ${type.kind}`,
    });
  if (has('create'))
    add(base, {
      action: 'post',
      method: 'post',
      body: definition,
      response: definition,
      gvk,
      description: `create a ${type.kind}`,
    });
  if (has('deletecollection'))
    add(base, {
      action: 'deletecollection',
      method: 'delete',
      gvk,
      description: `delete collection of ${type.kind}`,
    });
  if (type.namespaced && has('list'))
    add(`${prefix}/${type.plural}`, {
      action: 'list',
      method: 'get',
      response: list,
      gvk,
      description: `list or watch objects of kind ${type.kind}`,
    });
  const item = `${base}/{name}`;
  if (has('get'))
    add(item, {
      action: 'get',
      method: 'get',
      response: definition,
      gvk,
      description: `read the specified ${type.kind}`,
    });
  if (has('update'))
    add(item, {
      action: 'put',
      method: 'put',
      body: definition,
      response: definition,
      gvk,
      description: `replace the specified ${type.kind}`,
    });
  if (has('patch'))
    add(item, {
      action: 'patch',
      method: 'patch',
      response: definition,
      gvk,
      description: `partially update the specified ${type.kind}`,
    });
  if (has('delete'))
    add(item, { action: 'delete', method: 'delete', gvk, description: `delete a ${type.kind}` });
  for (const subresource of type.subresources) {
    const path = `${item}/${subresource}`;
    if (subresource === 'log') {
      add(path, { action: 'get', method: 'get', gvk, description: `read log of the specified ${type.kind}` });
      continue;
    }
    const scale = subresource === 'scale';
    const subGvk = scale ? { group: 'autoscaling', version: 'v1', kind: 'Scale' } : gvk;
    const subDefinition = scale ? 'io.k8s.api.autoscaling.v1.Scale' : definition;
    add(path, {
      action: 'get',
      method: 'get',
      response: subDefinition,
      gvk: subGvk,
      description: `read ${subresource} of the specified ${type.kind}`,
    });
    add(path, {
      action: 'put',
      method: 'put',
      body: subDefinition,
      response: subDefinition,
      gvk: subGvk,
      description: `replace ${subresource} of the specified ${type.kind}`,
    });
    add(path, {
      action: 'patch',
      method: 'patch',
      response: subDefinition,
      gvk: subGvk,
      description: `partially update ${subresource} of the specified ${type.kind}`,
    });
  }
  return paths;
}

function parametersOf(path: string, operation: PathOperation): Json[] {
  const parameters: Json[] = [];
  for (const match of path.matchAll(/\{(\w+)\}/g)) {
    parameters.push({
      name: match[1],
      in: 'path',
      required: true,
      type: 'string',
      uniqueItems: true,
      description: `${match[1]} of the resource`,
    });
  }
  parameters.push(PRETTY);
  if (['post', 'put', 'patch'].includes(operation.action))
    parameters.push(DRY_RUN, FIELD_MANAGER, FIELD_VALIDATION);
  if (operation.action === 'patch') parameters.push(FORCE);
  if (operation.action === 'delete' || operation.action === 'deletecollection') parameters.push(DRY_RUN);
  return parameters;
}

function renderOperation(path: string, operation: PathOperation, flavour: Flavour): Json {
  const parameters = parametersOf(path, operation);
  const response = operation.response ? { $ref: refPath(operation.response, flavour) } : { type: 'string' };
  const out: Json = {
    description: operation.description,
    operationId: `${operation.action}${operation.gvk.kind}`,
    'x-kubernetes-action': operation.action,
    'x-kubernetes-group-version-kind': operation.gvk,
  };
  const bodyTypes = operation.action === 'patch' ? PATCH_TYPES : ['application/json', 'application/yaml'];
  const bodySchema =
    operation.action === 'patch'
      ? { $ref: refPath('io.k8s.apimachinery.pkg.apis.meta.v1.Patch', flavour) }
      : operation.body && { $ref: refPath(operation.body, flavour) };
  if (flavour === 'v2') {
    out['consumes'] = operation.body || operation.action === 'patch' ? bodyTypes : ['*/*'];
    out['produces'] = ['application/json', 'application/yaml'];
    out['schemes'] = ['https'];
    out['parameters'] = bodySchema
      ? [...parameters, { name: 'body', in: 'body', required: true, schema: bodySchema }]
      : parameters;
    out['responses'] = {
      '200': { description: 'OK', schema: response },
      '401': { description: 'Unauthorized' },
    };
  } else {
    out['parameters'] = parameters.map(({ type, ...parameter }) => ({ ...parameter, schema: { type } }));
    if (bodySchema) {
      out['requestBody'] = {
        content: Object.fromEntries(bodyTypes.map((media) => [media, { schema: bodySchema }])),
        required: true,
      };
    }
    out['responses'] = {
      '200': {
        description: 'OK',
        content: { [operation.response ? 'application/json' : 'text/plain']: { schema: response } },
      },
      '401': { description: 'Unauthorized' },
    };
  }
  return out;
}

function pathsAndDefinitions(types: readonly ResourceType[], flavour: Flavour) {
  const paths: Record<string, Json> = {};
  const roots = new Set<string>(['io.k8s.apimachinery.pkg.apis.meta.v1.Patch']);
  for (const type of types) {
    const definition = definitionNameFor(type.group, type.version, type.kind);
    if (!definition) continue;
    roots.add(definition);
    roots.add(`${definition}List`);
    if (type.subresources.includes('scale')) roots.add('io.k8s.api.autoscaling.v1.Scale');
    for (const [path, operations] of Object.entries(operationsOf(type, definition))) {
      const item = (paths[path] ??= {});
      for (const operation of operations) item[operation.method] = renderOperation(path, operation, flavour);
    }
  }
  const definitions: Record<string, Json> = {};
  for (const name of [...closure(roots)].sort()) {
    const schema = DEFINITIONS.get(name);
    if (schema) definitions[name] = render(schema, flavour);
  }
  definitions['io.k8s.apimachinery.pkg.apis.meta.v1.Patch'] = {
    description: 'Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.',
    type: 'object',
  };
  return { paths, definitions };
}

const INFO = { title: 'Kubernetes', version: SIMULATED_VERSION.gitVersion };

/** The Swagger 2.0 document of everything served. */
export function openApiV2(): Json {
  const { paths, definitions } = pathsAndDefinitions(RESOURCE_TYPES, 'v2');
  return { swagger: '2.0', info: INFO, paths, definitions };
}

/** `api/v1` or `apis/<group>/<version>` of each served group version. */
function groupVersionPaths(): Map<string, ResourceType[]> {
  const result = new Map<string, ResourceType[]>();
  for (const type of RESOURCE_TYPES) {
    const key = type.group ? `apis/${type.group}/${type.version}` : `api/${type.version}`;
    const list = result.get(key) ?? [];
    list.push(type);
    result.set(key, list);
  }
  return result;
}

/** The OpenAPI 3.0 document of one group version (`apis/apps/v1`), or undefined when not served. */
export function openApiV3(path: string): Json | undefined {
  const types = groupVersionPaths().get(path);
  if (!types) return undefined;
  const { paths, definitions } = pathsAndDefinitions(types, 'v3');
  return { openapi: '3.0.0', info: INFO, paths, components: { schemas: definitions } };
}

let cachedHashes: Map<string, string> | undefined;

/** Content hash of a group version's document (the `hash` of its serverRelativeURL). */
function hashOf(path: string): string {
  cachedHashes ??= new Map(
    [...groupVersionPaths().keys()].map((key) => [
      key,
      createHash('sha512')
        .update(JSON.stringify(openApiV3(key)))
        .digest('hex')
        .toUpperCase(),
    ]),
  );
  return cachedHashes.get(path) ?? '';
}

/** `/openapi/v3`: where each group version's document is. */
export function openApiV3Root(): Json {
  return {
    paths: Object.fromEntries(
      [...groupVersionPaths().keys()].map((path) => [
        path,
        { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(path)}` },
      ]),
    ),
  };
}

/** Whether the request's `hash` names the current document (then it may be cached forever). */
export function isCurrentHash(path: string, hash: string | null): boolean {
  return hash !== null && hash === hashOf(path);
}

/** `group/version` of a served type, for the root's keys (exported for tests). */
export function documentPathOf(type: ResourceType): string {
  return type.group ? `apis/${groupVersion(type)}` : `api/${type.version}`;
}
