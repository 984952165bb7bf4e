import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../../../tools/index.ts';
import { DEFAULT_POLICY_PATH, loadPolicyFile, parsePolicy } from '../../../../server/gate/policy/load.ts';
import { fixtureTools } from '../fixtures/tools.ts';

const registry = createRegistry(fixtureTools);

describe('policy loading', () => {
  it('loads the shipped default policy: dry runs allowed, system namespaces denied, scale to 0 asks louder', () => {
    const { policy, warnings } = loadPolicyFile(DEFAULT_POLICY_PATH, registry);
    expect(warnings).toEqual([]);
    expect(policy.settings).toEqual({
      requestTtlMs: 30 * 60_000,
      replayWindowMs: 10 * 60_000,
      maxWindow: '1h',
      maxWindowMs: 60 * 60_000,
    });
    const evaluate = (tool: string, args: Record<string, unknown>) =>
      policy.evaluate({ toolName: tool, tool: registry.get(tool), args, cluster: 'kind-sentinel' });
    expect(
      evaluate('scale_deployment', {
        namespace: 'kube-system',
        name: 'coredns',
        replicas: 1,
        dry_run: false,
      }),
    ).toMatchObject({
      decision: 'deny',
      rule: 'system-namespaces',
    });
    expect(evaluate('pause_rollout', { namespace: 'kube-public', name: 'x', dry_run: false }).decision).toBe(
      'deny',
    );
    expect(
      evaluate('scale_deployment', { namespace: 'shop', name: 'web', replicas: 0, dry_run: false }),
    ).toMatchObject({
      decision: 'ask',
      rule: 'scale-to-zero',
      reason: expect.stringContaining('stops every Pod'),
    });
    expect(evaluate('rollback_deployment', { namespace: 'shop', name: 'web', dry_run: true })).toMatchObject({
      decision: 'allow',
      rule: 'dry-runs',
    });
    expect(evaluate('rollback_deployment', { namespace: 'shop', name: 'web', dry_run: false }).rule).toBe(
      'default:destructive',
    );
    expect(evaluate('get_version', {}).decision).toBe('allow');
  });

  it('caps window grants with settings.max_window (default 1h): a longer rule window does not load', () => {
    const rule = (window: string) =>
      `  - name: long\n    tool: scale_deployment\n    decision: ask\n    validity: { window: ${window} }\n`;
    expect(() => parsePolicy(`version: 1\nrules:\n${rule('2h')}`, 'p.yaml', registry)).toThrow(
      'Policy file p.yaml, line 6: rules[0].validity.window: 2h is longer than settings.max_window (1h); shorten the window or raise settings.max_window.',
    );
    expect(() =>
      parsePolicy(`version: 1\nsettings:\n  max_window: 15m\nrules:\n${rule('30m')}`, 'p.yaml', registry),
    ).toThrow(/rules\[0\]\.validity\.window: 30m is longer than settings\.max_window \(15m\)/);
    const raised = parsePolicy(
      `version: 1\nsettings:\n  max_window: 4h\nrules:\n${rule('2h')}`,
      'p.yaml',
      registry,
    );
    expect(raised.policy.settings).toMatchObject({ maxWindow: '4h', maxWindowMs: 4 * 3_600_000 });
    expect(() => parsePolicy('version: 1\nsettings:\n  max_window: soon\n', 'p.yaml', registry)).toThrow(
      /line 3: settings\.max_window: must be a positive duration/,
    );
  });

  it('ships a default policy that caps windows at 1 hour, in so many words', () => {
    expect(readFileSync(DEFAULT_POLICY_PATH, 'utf8')).toMatch(/^\s+max_window: 1h\b/m);
  });

  it.each([
    ['version: 1\nrules:\n  - name: a\n    decision: maybe\n', 4, 'rules[0].decision'],
    ['version: 1\nrules:\n  - name: a\n    decison: allow\n', 4, 'rules[0].decison: unknown field'],
    [
      'version: 1\nrules:\n  - decision: allow\n    args:\n      replicas: { min: 5, max: 1 }\n',
      5,
      'rules[0].args.replicas',
    ],
    [
      'version: 1\nrules:\n  - decision: allow\n    args:\n      name: { regex: "(" }\n',
      5,
      'rules[0].args.name.regex: must be a regular expression the RE2 engine accepts',
    ],
    // Lookahead and backreferences need a backtracking engine: refused at load.
    [
      'version: 1\nrules:\n  - decision: allow\n    args:\n      name: { regex: "^(?=a)" }\n',
      5,
      'rules[0].args.name.regex: must be a regular expression the RE2 engine accepts (error parsing regexp: invalid or unsupported Perl syntax',
    ],
    [
      'version: 1\nrules:\n  - decision: deny\n    args:\n      name: { glob: "*a*a*a*b" }\n',
      5,
      "rules[0].args.name.glob: must have at most 3 '*' wildcards",
    ],
    [
      'version: 1\nrules:\n  - decision: deny\n    args:\n      name: { globb: "x-*" }\n',
      5,
      'rules[0].args.name',
    ],
    [
      'version: 1\nrules:\n  - tool: rollback_deploymnet\n    decision: deny\n',
      3,
      "rules[0].tool: unknown tool 'rollback_deploymnet' (registered: ",
    ],
    [
      'version: 1\nrules:\n  - name: ok\n    decision: deny\n  - tool:\n      - scale_deployment\n      - restart_everything\n    decision: deny\n',
      7,
      "rules[1].tool[1]: unknown tool 'restart_everything'",
    ],
    ['version: 1\nrules:\n  - decision: ask\n    validity: { window: soon }\n', 4, 'rules[0].validity'],
    ['version: 1\nrules:\n  - decision: ask\n    approvers: ["role:boss"]\n', 4, 'rules[0].approvers[0]'],
    [
      'version: 1\nrules:\n  - name: x\n    decision: allow\n  - name: x\n    decision: deny\n',
      5,
      'rules[1].name: duplicates',
    ],
    ['version: 2\n', 1, 'version'],
    ['version: 1\nrules: [\n', 3, 'YAML'],
    [
      'version: 1\nrules:\n  - tool: scale_deployment\n    args: { namspace: shop }\n    decision: deny\n',
      4,
      "rules[0].args.namspace: no tool this rule matches (scale_deployment) has an argument 'namspace'",
    ],
  ])('rejects bad policy %# naming the file, line and field', (text, line, field) => {
    expect(() => parsePolicy(text, '/etc/sentinel/policy.yaml', registry)).toThrow(
      expect.objectContaining({
        code: 'invalid_input',
        message: expect.stringContaining(`Policy file /etc/sentinel/policy.yaml, line ${line}: ${field}`),
      }),
    );
  });

  describe('destructive floor: an allow rule never lets a real destructive call skip approval', () => {
    it.each([
      ['no tool', '  - name: allow-all\n    decision: allow\n', 'allow-all', 4],
      [
        'a tool glob',
        '  - name: all-deploys\n    tool: "*_deployment"\n    decision: allow\n',
        'all-deploys',
        5,
      ],
      [
        'a destructive tool',
        '  - name: scale\n    tool: scale_deployment\n    dry_run: false\n    decision: allow\n',
        'scale',
        6,
      ],
      [
        'the destructive risk',
        '  - name: risky\n    risk: destructive\n    args: { namespace: shop }\n    decision: allow\n',
        'risky',
        6,
      ],
    ])('rejects an allow rule with %s naming the file, line, field and rule', (_, rule, name, line) => {
      expect(() => parsePolicy(`version: 1\nrules:\n${rule}`, 'f.yaml', registry)).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          message: expect.stringMatching(
            new RegExp(
              `^Policy file f\\.yaml, line ${line}: rules\\[0\\]\\.decision: rule '${name}' allows real calls of destructive tools \\(.*scale_deployment.*\\) without approval; destructive tools can only be ask or deny; allow their previews with dry_run: true\\.$`,
            ),
          ),
        }),
      );
    });

    it('accepts allow rules for previews of destructive tools and for write tools', () => {
      const { policy } = parsePolicy(
        'version: 1\nrules:\n  - name: previews\n    dry_run: true\n    decision: allow\n  - name: pauses\n    tool: [pause_rollout]\n    decision: allow\n  - name: writes\n    risk: write\n    decision: allow\n',
        'f.yaml',
        registry,
      );
      expect(policy.rules.map((rule) => rule.name)).toEqual(['previews', 'pauses', 'writes']);
    });
  });

  it('warns about a tool glob that matches no tool, and names a missing file', () => {
    const { warnings } = parsePolicy(
      'version: 1\nrules:\n  - tool: restart_every*\n    decision: deny\n',
      'p.yaml',
      registry,
    );
    expect(warnings.join('\n')).toContain('matches no registered tool');
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-policy-'));
    try {
      expect(() => loadPolicyFile(join(dir, 'missing.yaml'))).toThrow(
        /Policy file .*missing\.yaml cannot be read/,
      );
      writeFileSync(join(dir, 'empty.yaml'), 'version: 1\n');
      expect(loadPolicyFile(join(dir, 'empty.yaml')).policy.rules).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
