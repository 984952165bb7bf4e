/**
 * The remediation Role grants exactly the API operations the remediation tools make, and no other
 * manifest in deploy/k8s/ grants a write: investigation-only installs hold no write rights.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { remediationOperations } from '../../../tools/remediate/operations.ts';

const DIR = join(import.meta.dirname, '../../../deploy/k8s');
const WRITE_VERBS = ['create', 'update', 'patch', 'delete', 'deletecollection', '*'];

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs?: string[];
}
type Manifest = {
  kind?: string;
  metadata?: { name?: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { kind: string; name: string };
};

function manifests(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return doc.toJS() as Manifest;
  });
}

/** `verb group/resource` for every combination a rule grants. */
function grants(rules: Rule[] = []): string[] {
  return rules.flatMap((rule) =>
    (rule.apiGroups ?? []).flatMap((group) =>
      (rule.resources ?? []).flatMap((resource) =>
        (rule.verbs ?? []).map((verb) => `${verb} ${group || 'core'}/${resource}`),
      ),
    ),
  );
}

describe('deploy/k8s/remediation-role.yaml', () => {
  const docs = manifests('remediation-role.yaml');
  const role = docs.find((doc) => doc.kind === 'Role')!;

  it('grants exactly the operations the remediation tools make', () => {
    const needed = remediationOperations().map((op) => `${op.verb} ${op.group || 'core'}/${op.resource}`);
    expect(grants(role.rules).sort()).toEqual(needed.sort());
  });

  it('is a namespaced Role bound to the Sentinel service account', () => {
    expect(role.metadata?.name).toBe('sentinel-remediation');
    const binding = docs.find((doc) => doc.kind === 'RoleBinding') as Manifest & {
      subjects: { kind: string; name: string }[];
    };
    expect(binding.roleRef).toMatchObject({ kind: 'Role', name: 'sentinel-remediation' });
    expect(binding.metadata?.namespace).toBe(role.metadata?.namespace);
    expect(binding.subjects).toEqual([expect.objectContaining({ kind: 'ServiceAccount', name: 'sentinel' })]);
  });
});

describe('write rights in deploy/k8s/', () => {
  it('are granted by the remediation Role only', () => {
    const writers = readdirSync(DIR)
      .filter((file) => /\.ya?ml$/.test(file))
      .flatMap((file) =>
        manifests(file)
          .filter((doc) => grants(doc.rules).some((grant) => WRITE_VERBS.includes(grant.split(' ')[0]!)))
          .map((doc) => `${file}: ${doc.kind}/${doc.metadata?.name}`),
      );
    expect(writers).toEqual(['remediation-role.yaml: Role/sentinel-remediation']);
  });
});
