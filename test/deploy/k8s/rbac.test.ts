/**
 * The RBAC manifests in deploy/k8s/ grant exactly the calls the Kubernetes layer can make — nothing
 * missing (a tool would fail with `forbidden`), nothing extra (least privilege). The calls come from
 * the layer's own table (tools/kube/operations.ts), which the reader and writer are checked against.
 * A new role (e.g. remediation) is one more row in ROLES.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  READER_OPERATIONS,
  CACHE_OPERATIONS,
  WRITER_OPERATIONS,
  type KubeNonResourceOperation,
  type KubeOperation,
} from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { remediationOperations } from '../../../tools/remediate/operations.ts';
import { writeKubeconfig } from '../../helpers/kube.ts';

const DIR = new URL('../../../deploy/k8s/', import.meta.url);

interface RoleSpec {
  /** Manifest file in deploy/k8s/ holding the role and its binding. */
  file: string;
  kind: 'Role' | 'ClusterRole';
  name: string;
  /** Whether the role may only read (get/list/watch). */
  readOnly: boolean;
  /** The Kubernetes layer calls the role must allow, and nothing more. */
  operations: readonly (KubeOperation | KubeNonResourceOperation)[];
}

// The reader's calls and the read cache's watches (--read-cache watch).
const readerOperations = [...Object.values(READER_OPERATIONS), ...Object.values(CACHE_OPERATIONS)];
/** Cluster-scoped reads (namespaces): a namespaced Role cannot grant them. */
const isClusterScoped = (op: KubeOperation | KubeNonResourceOperation) =>
  'clusterScoped' in op && op.clusterScoped === true;

const ROLES: RoleSpec[] = [
  {
    file: 'read-only-role.yaml',
    kind: 'Role',
    name: 'sentinel-read-only',
    readOnly: true,
    operations: readerOperations.filter((op) => !isClusterScoped(op)),
  },
  {
    // With the namespaced Role: the cluster-scoped reads (list namespaces) only.
    file: 'namespace-reader-clusterrole.yaml',
    kind: 'ClusterRole',
    name: 'sentinel-namespace-reader',
    readOnly: true,
    operations: readerOperations.filter(isClusterScoped),
  },
  {
    file: 'read-only-clusterrole.yaml',
    kind: 'ClusterRole',
    name: 'sentinel-read-only',
    readOnly: true,
    operations: readerOperations,
  },
  {
    // What the remediation tools call (tools/remediate/operations.ts), writes included.
    file: 'remediation-role.yaml',
    kind: 'Role',
    name: 'sentinel-remediation',
    readOnly: false,
    operations: remediationOperations(),
  },
];

const RuleSchema = z.strictObject({
  apiGroups: z.array(z.string()).optional(),
  resources: z.array(z.string()).optional(),
  nonResourceURLs: z.array(z.string()).optional(),
  verbs: z.array(z.string()).min(1),
});
const SubjectSchema = z.object({ kind: z.string(), name: z.string(), namespace: z.string().optional() });
const ManifestSchema = z.object({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.object({ name: z.string(), namespace: z.string().optional() }).loose(),
  rules: z.array(RuleSchema).optional(),
  roleRef: z.object({ apiGroup: z.string(), kind: z.string(), name: z.string() }).optional(),
  subjects: z.array(SubjectSchema).optional(),
});
type Manifest = z.infer<typeof ManifestSchema>;

function load(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(new URL(file, DIR), 'utf8')).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return ManifestSchema.parse(doc.toJS());
  });
}

/** `group|resource|verb` (or `url|verb`) for every permission a list of rules grants. */
function granted(rules: z.infer<typeof RuleSchema>[]): Set<string> {
  const out = new Set<string>();
  for (const rule of rules) {
    for (const verb of rule.verbs) {
      for (const url of rule.nonResourceURLs ?? []) out.add(`${url}|${verb}`);
      for (const group of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? []) out.add(`${group}|${resource}|${verb}`);
    }
  }
  return out;
}

/**
 * What a role must grant. A namespaced Role cannot grant non-resource URLs; Kubernetes grants
 * /version to everyone; the namespace reader ClusterRole holds only the cluster-scoped reads.
 */
function required(spec: RoleSpec): Set<string> {
  return new Set(
    spec.operations.flatMap((op) =>
      'nonResourceURL' in op
        ? spec.kind === 'ClusterRole' && spec.name === 'sentinel-read-only'
          ? [`${op.nonResourceURL}|${op.verb}`]
          : []
        : [`${op.group}|${op.resource}|${op.verb}`],
    ),
  );
}

const serviceAccount = load('serviceaccount.yaml').find((m) => m.kind === 'ServiceAccount')!;

describe('the operation table is the Kubernetes layer', () => {
  it('lists exactly the reader and writer methods', () => {
    const file = writeKubeconfig();
    try {
      const connection = connectKube({ kubeconfig: file.path });
      if (!connection.configured) throw new Error(connection.reason);
      expect(
        Object.keys(connection.reader)
          .filter((k) => k !== 'cluster')
          .sort(),
      ).toEqual(Object.keys(READER_OPERATIONS).sort());
      expect(Object.keys(connection.writer).sort()).toEqual(Object.keys(WRITER_OPERATIONS).sort());
    } finally {
      file.remove();
    }
  });
});

describe.each(ROLES)('$kind $name ($file)', (spec) => {
  const manifests = load(spec.file);
  const role = manifests.find((m) => m.kind === spec.kind && m.metadata.name === spec.name);

  it('grants exactly the calls the Kubernetes layer makes', () => {
    expect(role, `${spec.kind} ${spec.name} in ${spec.file}`).toBeDefined();
    const have = granted(role!.rules ?? []);
    const want = required(spec);
    expect({
      missing: [...want].filter((p) => !have.has(p)).sort(),
      extra: [...have].filter((p) => !want.has(p)).sort(),
    }).toEqual({
      missing: [],
      extra: [],
    });
  });

  it('uses no wildcards and, when read-only, only get/list/watch', () => {
    for (const rule of role!.rules ?? []) {
      for (const value of [
        ...(rule.apiGroups ?? []),
        ...(rule.resources ?? []),
        ...rule.verbs,
        ...(rule.nonResourceURLs ?? []),
      ]) {
        expect(value).not.toContain('*');
      }
      if (spec.readOnly) for (const verb of rule.verbs) expect(['get', 'list', 'watch']).toContain(verb);
    }
  });

  it("is bound to Sentinel's ServiceAccount", () => {
    const bindingKind = spec.kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding';
    const binding = manifests.find((m) => m.kind === bindingKind && m.roleRef?.name === spec.name);
    expect(binding, `${bindingKind} for ${spec.name}`).toBeDefined();
    expect(binding!.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: spec.kind,
      name: spec.name,
    });
    expect(binding!.subjects).toEqual([
      {
        kind: 'ServiceAccount',
        name: serviceAccount.metadata.name,
        namespace: serviceAccount.metadata.namespace,
      },
    ]);
    if (spec.kind === 'Role') expect(binding!.metadata.namespace).toBe(role!.metadata.namespace);
  });
});

describe('write rights in deploy/k8s/', () => {
  it('are granted only by the remediation role, so an investigation-only install holds none', () => {
    const writers = readdirSync(DIR)
      .filter((file) => /\.ya?ml$/.test(file))
      .flatMap((file) =>
        load(file)
          .filter((m) => [...granted(m.rules ?? [])].some((p) => !/\|(get|list|watch)$/.test(p)))
          .map((m) => `${file}: ${m.kind}/${m.metadata.name}`),
      );
    expect(writers).toEqual(
      ROLES.filter((spec) => !spec.readOnly).map((spec) => `${spec.file}: ${spec.kind}/${spec.name}`),
    );
  });
});
