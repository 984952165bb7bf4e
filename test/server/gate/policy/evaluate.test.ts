import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../../../tools/index.ts';
import { parsePolicy } from '../../../../server/gate/policy/load.ts';
import {
  evaluateResolved,
  stricterValidity,
  stricterVerdict,
} from '../../../../server/gate/policy/evaluate.ts';
import { fixtureTools } from '../fixtures/tools.ts';

const registry = createRegistry(fixtureTools);

/** The rules without the registry checks (unknown tools, the destructive floor). */
function unfloored(rules: string) {
  return parsePolicy(`version: 1\nrules:\n${rules}`, 'p.yaml').policy;
}

function policy(rules: string, settings = '') {
  return parsePolicy(`version: 1\n${settings}rules:\n${rules}`, 'p.yaml', registry).policy;
}

function evaluate(
  p: ReturnType<typeof policy>,
  tool: string,
  args: Record<string, unknown>,
  cluster = 'kind-sentinel',
) {
  return p.evaluate({
    toolName: tool,
    tool: registry.get(tool),
    args,
    cluster,
    identity: { name: 'agent', roles: ['caller'] },
  });
}

describe('policy evaluation', () => {
  it('matches regexes in linear time: a catastrophic-backtracking pattern on a hostile name returns at once', () => {
    // With JS RegExp, ^(a+)+$ against 'aaa…a!' backtracks for longer than the test timeout.
    const p = policy(`  - name: nested
    tool: scale_deployment
    args: { name: { regex: '^(a+)+$' } }
    decision: deny
`);
    const hostile = `${'a'.repeat(200)}!`;
    expect(evaluate(p, 'scale_deployment', { namespace: 'shop', name: hostile, replicas: 1 })).toMatchObject({
      decision: 'ask',
      rule: 'default:destructive',
    });
    expect(evaluate(p, 'scale_deployment', { namespace: 'shop', name: 'aaaa', replicas: 1 }).rule).toBe(
      'nested',
    );
  });

  it('denies (fails closed) an argument longer than the policy matches, instead of letting it skip a deny rule', () => {
    const p = policy(`  - name: no-prod
    args: { namespace: { glob: 'prod-*' } }
    decision: deny
`);
    const verdict = evaluate(p, 'pause_rollout', { namespace: `x${'y'.repeat(300)}`, name: 'web' });
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'default:argument-too-long' });
    expect(verdict.reason).toContain("Argument 'namespace' is 301 characters long");
    // Arguments no glob or regex looks at are not limited.
    expect(evaluate(p, 'pause_rollout', { namespace: 'shop', name: 'y'.repeat(300) }).decision).toBe('ask');
  });

  it('applies the defaults: read allow, write/destructive ask, unknown tool deny', () => {
    const p = policy('  []\n'.replace('  []\n', ''), '');
    expect(evaluate(p, 'get_version', {})).toMatchObject({ decision: 'allow', rule: 'default:read' });
    expect(evaluate(p, 'pause_rollout', { namespace: 'a', name: 'b' })).toMatchObject({
      decision: 'ask',
      rule: 'default:write',
      validity: 'once',
      approvers: ['role:approver'],
    });
    expect(evaluate(p, 'scale_deployment', { namespace: 'a', name: 'b', replicas: 1 })).toMatchObject({
      decision: 'ask',
      rule: 'default:destructive',
    });
    expect(evaluate(p, 'delete_cluster', {})).toMatchObject({
      decision: 'deny',
      rule: 'default:unknown-tool',
    });
  });

  it('matches namespace globs, regexes, replicas ranges, presence and clusters', () => {
    const p = policy(`  - name: prod-glob
    args: { namespace: { glob: 'prod-*' } }
    decision: deny
  - name: big-scale
    tool: scale_deployment
    args: { replicas: { min: 20 } }
    decision: deny
  - name: regex-name
    risk: write
    args: { name: { regex: '^canary-' } }
    decision: allow
  - name: explicit-revision
    tool: rollback_deployment
    args: { to_revision: { present: true } }
    decision: ask
  - name: dev-cluster
    cluster: 'kind-*'
    tool: pause_rollout
    decision: allow
`);
    const scale = (namespace: string, replicas: number) =>
      evaluate(p, 'scale_deployment', { namespace, name: 'web', replicas, dry_run: false }).rule;
    expect(scale('prod-eu', 3)).toBe('prod-glob');
    expect(scale('production', 3)).toBe('default:destructive');
    expect(scale('shop', 20)).toBe('big-scale');
    expect(scale('shop', 19)).toBe('default:destructive');
    expect(evaluate(p, 'pause_rollout', { namespace: 'x', name: 'canary-web' }).rule).toBe('regex-name');
    expect(evaluate(p, 'rollback_deployment', { namespace: 'x', name: 'web', to_revision: 3 }).rule).toBe(
      'explicit-revision',
    );
    expect(evaluate(p, 'rollback_deployment', { namespace: 'x', name: 'web' }).rule).toBe(
      'default:destructive',
    );
    expect(evaluate(p, 'pause_rollout', { namespace: 'x', name: 'web' }, 'kind-dev').rule).toBe(
      'dev-cluster',
    );
    expect(evaluate(p, 'pause_rollout', { namespace: 'x', name: 'web' }, 'prod-eu').rule).toBe(
      'default:write',
    );
  });

  it('combines matching rules most-restrictively, first in file order naming the reason', () => {
    const p = policy(
      `  - name: allow-shop
    risk: write
    args: { namespace: shop }
    decision: allow
  - name: ask-long
    args: { namespace: shop }
    decision: ask
    reason: Long window.
    validity: { window: 2h }
  - name: ask-short
    tool: scale_deployment
    decision: ask
    reason: Short window.
    validity: { window: 10m }
    approvers: [alice]
  - name: deny-zero
    args: { replicas: 0 }
    decision: deny
    reason: Never zero.
`,
      'settings: { max_window: 2h }\n',
    );
    expect(evaluate(p, 'pause_rollout', { namespace: 'shop', name: 'w' })).toMatchObject({
      decision: 'ask',
      rule: 'ask-long',
      validity: { window: '2h' },
    });
    const both = evaluate(p, 'scale_deployment', { namespace: 'shop', name: 'w', replicas: 2 });
    expect(both).toMatchObject({
      decision: 'ask',
      rule: 'ask-long',
      rules: ['ask-long', 'ask-short'],
      reason: 'Long window. Short window.',
      validity: { window: '10m' },
    });
    expect(evaluate(p, 'scale_deployment', { namespace: 'shop', name: 'w', replicas: 0 })).toMatchObject({
      decision: 'deny',
      rule: 'deny-zero',
    });
    expect(stricterValidity({ window: '1h' }, 'once')).toBe('once');
    expect(stricterValidity({ window: '1h' }, { window: '90s' })).toEqual({ window: '90s' });
  });

  it('allows dry runs only for tools that support them, and dry_run rules separate previews from changes', () => {
    const p = policy(`  - name: previews
    dry_run: true
    decision: allow
  - name: no-changes-in-kube
    dry_run: false
    args: { namespace: { glob: 'kube-*' } }
    decision: deny
`);
    const preview = evaluate(p, 'scale_deployment', {
      namespace: 'kube-system',
      name: 'x',
      replicas: 1,
      dry_run: true,
    });
    expect(preview).toMatchObject({ decision: 'allow', rule: 'previews', dryRun: true });
    expect(
      evaluate(p, 'scale_deployment', { namespace: 'kube-system', name: 'x', replicas: 1, dry_run: false }),
    ).toMatchObject({ decision: 'deny', rule: 'no-changes-in-kube' });
    // annotate_deployment has no dry-run mode: no preview rule applies to it.
    expect(evaluate(p, 'annotate_deployment', { namespace: 'a', name: 'b', key: 'k', value: 'v' }).rule).toBe(
      'default:write',
    );
  });

  it('never reads MCP annotations: a tool whose annotations claim read-only is still judged by its risk', () => {
    const scale = registry.get('scale_deployment')!;
    const lying = {
      ...scale,
      annotations: { ...scale.annotations, readOnlyHint: true, destructiveHint: false },
    };
    const p = policy('');
    expect(p.evaluate({ toolName: 'scale_deployment', tool: lying, args: {}, cluster: 'c' }).decision).toBe(
      'ask',
    );
  });

  it('matches requesters by name and role, and gives a window scope that changes with the matched rules', () => {
    const p = policy(`  - name: trusted-bot
    requester: [ci-bot, 'role:admin']
    tool: pause_rollout
    decision: allow
`);
    const call = (identity: { name: string; roles: ('caller' | 'approver' | 'admin')[] }) =>
      p.evaluate({
        toolName: 'pause_rollout',
        tool: registry.get('pause_rollout'),
        args: {},
        cluster: 'c',
        identity,
      });
    expect(call({ name: 'ci-bot', roles: ['caller'] }).decision).toBe('allow');
    expect(call({ name: 'root', roles: ['admin'] }).decision).toBe('allow');
    expect(call({ name: 'agent', roles: ['caller'] }).decision).toBe('ask');
  });
});

describe('the policy on the resolved call', () => {
  const query = (args: Record<string, unknown>) => ({
    toolName: 'rollback_deployment',
    tool: registry.get('rollback_deployment'),
    args,
    cluster: 'kind-sentinel',
    identity: { name: 'agent', roles: ['caller' as const] },
  });
  const judge = (
    p: ReturnType<typeof policy>,
    args: Record<string, unknown>,
    resolved: Record<string, unknown>,
  ) => evaluateResolved(p, query(args), p.evaluate(query(args)), resolved);
  const asSent = { namespace: 'shop', name: 'web', dry_run: false, reason: 'r' };

  it('takes the stricter decision: a deny or the default ask the resolved call meets beats an allow of the call as sent', () => {
    // Parsed without the registry: a loaded policy cannot allow a destructive tool (load.ts), but
    // evaluateResolved must still combine an allow verdict safely.
    const p = unfloored(`  - name: web-rollbacks
    tool: rollback_deployment
    args: { name: web }
    decision: allow
  - name: old-revisions
    tool: rollback_deployment
    args: { to_revision: { max: 2 } }
    decision: deny
    reason: Withdrawn.
`);
    const denied = judge(p, asSent, { namespace: 'shop', name: 'web', to_revision: 2 });
    expect(denied).toMatchObject({
      decision: 'deny',
      rule: 'old-revisions',
      reason: 'Withdrawn.',
      resolvedArguments: { namespace: 'shop', name: 'web', to_revision: 2 },
    });
    expect(judge(p, asSent, { namespace: 'shop', name: 'web', to_revision: 3 })).toMatchObject({
      decision: 'allow',
      rule: 'web-rollbacks',
    });
    // The allow rule matched the call as sent only: the resolved call falls to the default.
    expect(judge(p, asSent, { namespace: 'shop', name: 'api', to_revision: 3 })).toMatchObject({
      decision: 'ask',
      rule: 'default:destructive',
    });
  });

  it('keeps the verdict on the call as sent when it is the stricter one or the resolved call is the same call', () => {
    const p = policy(`  - name: web-rollbacks
    tool: rollback_deployment
    args: { name: web }
    decision: deny
`);
    const verdict = judge(p, asSent, { namespace: 'shop', name: 'api', to_revision: 3 });
    expect(verdict).toMatchObject({ decision: 'deny', rule: 'web-rollbacks' });
    expect(verdict.resolvedArguments).toBeUndefined();
    const same = judge(p, { ...asSent, name: 'api' }, { namespace: 'shop', name: 'api' });
    expect(same).toEqual(p.evaluate(query({ ...asSent, name: 'api' })));
  });

  it('sees the unmatched arguments as sent (reason), and merges equal decisions: explicit rule leads, stricter validity, both scopes', () => {
    const p = policy(`  - name: web-window
    tool: rollback_deployment
    args: { name: web, reason: { present: true } }
    decision: ask
    reason: Web.
    validity: { window: 1h }
  - name: api-once
    tool: rollback_deployment
    args: { name: api, reason: { present: true } }
    decision: ask
    reason: Api.
    approvers: [carol]
`);
    const sent = p.evaluate(query(asSent));
    const merged = judge(p, asSent, { namespace: 'shop', name: 'api' });
    expect(merged).toMatchObject({
      decision: 'ask',
      rule: 'api-once',
      rules: ['api-once', 'web-window'],
      reason: 'Api. Web.',
      approvers: ['carol'],
      validity: 'once',
    });
    expect(merged.scope).not.toBe(sent.scope);
    // A default on the resolved side does not displace an explicit rule on the call as sent.
    expect(judge(p, asSent, { namespace: 'shop', name: 'db' })).toMatchObject({
      decision: 'ask',
      rule: 'web-window',
      reason: 'Web.',
      validity: 'once',
    });
  });

  it('is what stricterVerdict computes for two verdicts', () => {
    const p = policy('');
    const ask = p.evaluate(query(asSent));
    const allow = { ...ask, decision: 'allow' as const, rule: 'x', rules: ['x'] };
    expect(stricterVerdict(allow, ask, { name: 'api' })).toMatchObject({
      decision: 'ask',
      resolvedArguments: { name: 'api' },
    });
    expect(stricterVerdict(ask, allow, { name: 'api' })).toBe(ask);
  });
});
