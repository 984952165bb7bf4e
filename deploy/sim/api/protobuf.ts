/**
 * Request bodies in the Kubernetes protobuf encoding (`application/vnd.kubernetes.protobuf`), which
 * kubectl's typed clients send for `auth can-i`, `auth whoami` and `autoscale`: the `k8s\0` magic, a
 * runtime.Unknown envelope (typeMeta = 1 {apiVersion = 1, kind = 2}, raw = 2), and the object
 * message. Decoded to the JSON shape for the kinds those commands create, with the field numbers of
 * their generated.proto files (k8s.io/api/{authorization,authentication,autoscaling}/v1 and
 * apimachinery's ObjectMeta); any other kind is 415, so the client can send JSON instead.
 * Responses are always JSON (kubectl accepts it).
 */
import { unsupportedMediaType } from './status.ts';

type FieldType =
  'string' | 'int' | 'bool' | MessageSpec | { map: true } | { repeated: 'string' | MessageSpec };
interface MessageSpec {
  [field: number]: [name: string, type: FieldType];
}

const TYPE_META: MessageSpec = { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] };
const UNKNOWN: MessageSpec = {
  1: ['typeMeta', TYPE_META],
  2: ['raw', 'string'],
  3: ['contentEncoding', 'string'],
  4: ['contentType', 'string'],
};
const OBJECT_META: MessageSpec = {
  1: ['name', 'string'],
  2: ['generateName', 'string'],
  3: ['namespace', 'string'],
  11: ['labels', { map: true }],
  12: ['annotations', { map: true }],
};
const RESOURCE_ATTRIBUTES: MessageSpec = {
  1: ['namespace', 'string'],
  2: ['verb', 'string'],
  3: ['group', 'string'],
  4: ['version', 'string'],
  5: ['resource', 'string'],
  6: ['subresource', 'string'],
  7: ['name', 'string'],
};
const NON_RESOURCE_ATTRIBUTES: MessageSpec = { 1: ['path', 'string'], 2: ['verb', 'string'] };

const POLICY_RULE: MessageSpec = {
  1: ['verbs', { repeated: 'string' }],
  2: ['apiGroups', { repeated: 'string' }],
  3: ['resources', { repeated: 'string' }],
  4: ['resourceNames', { repeated: 'string' }],
  5: ['nonResourceURLs', { repeated: 'string' }],
};
const SUBJECT: MessageSpec = {
  1: ['kind', 'string'],
  2: ['apiGroup', 'string'],
  3: ['name', 'string'],
  4: ['namespace', 'string'],
};
const ROLE_REF: MessageSpec = { 1: ['apiGroup', 'string'], 2: ['kind', 'string'], 3: ['name', 'string'] };
const ROLE: MessageSpec = { 1: ['metadata', OBJECT_META], 2: ['rules', { repeated: POLICY_RULE }] };
const BINDING: MessageSpec = {
  1: ['metadata', OBJECT_META],
  2: ['subjects', { repeated: SUBJECT }],
  3: ['roleRef', ROLE_REF],
};

/** Message specs by `apiVersion/kind`. */
const KINDS: Record<string, MessageSpec> = {
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: ['metadata', OBJECT_META],
    2: [
      'spec',
      {
        1: ['resourceAttributes', RESOURCE_ATTRIBUTES],
        2: ['nonResourceAttributes', NON_RESOURCE_ATTRIBUTES],
      },
    ],
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: ['metadata', OBJECT_META],
    2: ['spec', { 1: ['namespace', 'string'] }],
  },
  'authentication.k8s.io/v1/SelfSubjectReview': { 1: ['metadata', OBJECT_META] },
  'rbac.authorization.k8s.io/v1/Role': ROLE,
  'rbac.authorization.k8s.io/v1/ClusterRole': ROLE,
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'v1/ServiceAccount': { 1: ['metadata', OBJECT_META] },
  'v1/Namespace': { 1: ['metadata', OBJECT_META] },
  'autoscaling/v1/HorizontalPodAutoscaler': {
    1: ['metadata', OBJECT_META],
    2: [
      'spec',
      {
        1: ['scaleTargetRef', { 1: ['kind', 'string'], 2: ['name', 'string'], 3: ['apiVersion', 'string'] }],
        2: ['minReplicas', 'int'],
        3: ['maxReplicas', 'int'],
        4: ['targetCPUUtilizationPercentage', 'int'],
      },
    ],
  },
};

class Reader {
  offset = 0;
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  varint(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (this.offset >= this.bytes.length) throw new Error('truncated varint');
      const byte = this.bytes[this.offset++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
      if (shift > 63) throw new Error('varint too long');
    }
  }

  bytesField(): Uint8Array {
    const length = this.varint();
    if (this.offset + length > this.bytes.length) throw new Error('truncated field');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.offset += 8;
    else if (wireType === 2) this.bytesField();
    else if (wireType === 5) this.offset += 4;
    else throw new Error(`unsupported wire type ${wireType}`);
  }
}

function decode(bytes: Uint8Array, spec: MessageSpec, raw = false): Record<string, unknown> {
  const reader = new Reader(bytes);
  const out: Record<string, unknown> = {};
  while (reader.offset < bytes.length) {
    const tag = reader.varint();
    const number = Math.floor(tag / 8);
    const wireType = tag & 7;
    const field = spec[number];
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    const [name, type] = field;
    if (type === 'int') out[name] = reader.varint() | 0;
    else if (type === 'bool') out[name] = reader.varint() !== 0;
    else if (type === 'string') {
      const value = reader.bytesField();
      // gogo-protobuf writes unset strings as ""; JSON omits them.
      if (raw && name === 'raw') out[name] = value;
      else if (value.length > 0) out[name] = new TextDecoder().decode(value);
    } else if ('repeated' in type) {
      const list = (out[name] ??= []) as unknown[];
      const value = reader.bytesField();
      list.push(type.repeated === 'string' ? new TextDecoder().decode(value) : decode(value, type.repeated));
    } else if ('map' in type) {
      const entry = decode(reader.bytesField(), { 1: ['key', 'string'], 2: ['value', 'string'] });
      const map = (out[name] ??= {}) as Record<string, unknown>;
      map[String(entry['key'] ?? '')] = entry['value'] ?? '';
    } else out[name] = decode(reader.bytesField(), type);
  }
  return out;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/**
 * The JSON form of a Kubernetes protobuf body. @throws ApiError 415 when the body is not the
 * envelope or its kind is not one decoded here.
 */
export function decodeKubernetesProtobuf(body: Uint8Array): Record<string, unknown> {
  const refuse = () =>
    unsupportedMediaType('application/vnd.kubernetes.protobuf', ['application/json', 'application/yaml']);
  if (body.length < 4 || MAGIC.some((byte, index) => body[index] !== byte)) throw refuse();
  let envelope: Record<string, unknown>;
  try {
    envelope = decode(body.subarray(4), UNKNOWN, true);
  } catch {
    throw refuse();
  }
  const typeMeta = (envelope['typeMeta'] ?? {}) as { apiVersion?: string; kind?: string };
  const spec = KINDS[`${typeMeta.apiVersion}/${typeMeta.kind}`];
  if (!spec || !(envelope['raw'] instanceof Uint8Array)) throw refuse();
  try {
    return { apiVersion: typeMeta.apiVersion, kind: typeMeta.kind, ...decode(envelope['raw'], spec) };
  } catch {
    throw refuse();
  }
}
