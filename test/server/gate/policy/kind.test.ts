/**
 * Policy rules that match the workload kind (issue 15), and the default that never allows a force
 * deletion, against the real tools (whose schemas say which take `kind`).
 */
import { describe, expect, it } from 'vitest';
import { allTools, createRegistry } from '../../../../tools/index.ts';
import { parsePolicy } from '../../../../server/gate/policy/load.ts';
import { evaluateResolved } from '../../../../server/gate/policy/evaluate.ts';

const registry = createRegistry(allTools);
const policy = (rules: string) => parsePolicy(`version: 1\nrules:\n${rules}`, 'p.yaml', registry).policy;
const query = (tool: string, args: Record<string, unknown>) => ({
  toolName: tool,
  tool: registry.get(tool),
  args,
  cluster: 'kind-sentinel',
  identity: { name: 'agent', roles: ['caller' as const] },
});

const DB_RULE = `  - name: databases
    kind: StatefulSet
    decision: ask
    approvers: [role:admin]
    reason: Databases need an admin.
`;

describe('policy rules with kind', () => {
  it('match the kind argument; a call without kind is a Deployment; a tool without kind never matches', () => {
    const p = policy(DB_RULE);
    const sts = p.evaluate(
      query('rollback_deployment', { namespace: 'shop', name: 'postgres', kind: 'StatefulSet' }),
    );
    expect(sts).toMatchObject({ rule: 'databases', approvers: ['role:admin'] });
    expect(p.evaluate(query('rollback_deployment', { namespace: 'shop', name: 'web' })).rule).toBe(
      'default:destructive',
    );
    expect(p.evaluate(query('delete_pod', { namespace: 'shop', name: 'postgres-0' })).rule).toBe(
      'default:destructive',
    );
    const deployments = policy(`  - name: deployments
    kind: [Deployment]
    decision: deny
`);
    expect(
      deployments.evaluate(query('scale_deployment', { namespace: 'shop', name: 'web', replicas: 2 })).rule,
    ).toBe('deployments');
    expect(
      deployments.evaluate(
        query('scale_deployment', { namespace: 'shop', name: 'db', replicas: 2, kind: 'StatefulSet' }),
      ).decision,
    ).toBe('ask');
  });

  it('judge a Service resolved to a StatefulSet as a StatefulSet', () => {
    const p = policy(DB_RULE);
    const asSent = query('restart_service', { namespace: 'shop', name: 'db' });
    const verdict = p.evaluate(asSent);
    expect(verdict.rule).toBe('default:destructive');
    const resolved = evaluateResolved(p, asSent, verdict, {
      namespace: 'shop',
      name: 'postgres',
      kind: 'StatefulSet',
    });
    expect(resolved).toMatchObject({ rule: 'databases', approvers: ['role:admin'] });
  });

  it('rejects a kind that is not a workload kind when the policy loads', () => {
    expect(() => policy(`  - kind: statefulset\n    decision: ask\n`)).toThrow(/kind/);
  });
});

describe('force deletion', () => {
  it('is denied by default, previewable, and allowed only by a rule that matches it', () => {
    const none = policy('');
    const force = query('delete_pod', { namespace: 'shop', name: 'web-0', grace_period_seconds: 0 });
    expect(none.evaluate(force)).toMatchObject({ decision: 'deny', rule: 'default:force-delete' });
    expect(
      none.evaluate(query('delete_pod', { namespace: 'shop', name: 'web-0', grace_period_seconds: 5 }))
        .decision,
    ).toBe('ask');
    expect(none.evaluate({ ...force, args: { ...force.args, dry_run: true } }).decision).not.toBe('deny');
    const allowed = policy(`  - name: force-with-approval
    tool: delete_pod
    args: { grace_period_seconds: 0 }
    decision: ask
`);
    expect(allowed.evaluate(force)).toMatchObject({ decision: 'ask', rule: 'force-with-approval' });
  });
});
