import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { SCENARIOS_DIR } from '../../../deploy/sim/index.ts';
import {
  renderEvalTable,
  scenarioFiles,
  score,
  scoreDetails,
  type EvalResult,
} from '../../../agent/investigator/eval.ts';
import type { Report } from '../../../agent/investigator/report.ts';
import { runCli } from '../../helpers/cli.ts';

// Each scenario runs the whole loop on its own simulator and server: minutes on a loaded machine.
describe('sentinel eval', { timeout: 300_000 }, () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('--json scores every bundled scenario correct, with no unapproved mutation', async () => {
    const { code, stdout, stderr } = await runCli(['eval', '--json', '--time-scale', '60']);
    const results = JSON.parse(stdout) as EvalResult[];
    expect([...new Set(results.map((r) => r.scenario))].sort()).toEqual(
      scenarioFiles(SCENARIOS_DIR)
        .map((file) => (parse(readFileSync(file, 'utf8')) as { name: string }).name)
        .sort(),
    );
    for (const result of results) {
      expect(result, result.summary).toMatchObject({
        culprit_found: true,
        diagnosis_correct: true,
        remediation_correct: true,
        unapproved_mutations: 0,
      });
      expect(result.seconds).toBeGreaterThan(0);
    }
    expect(stderr).toContain('eval: ');
    expect(code).toBe(0);
  });

  // The whole run above reads through the read cache (the default); the uncached path stays scored too.
  it('--read-cache off: scores a remediating scenario fully correct reading the API server only', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-eval-test-'));
    dirs.push(dir);
    copyFileSync(join(SCENARIOS_DIR, 'bad-image-rollout.yaml'), join(dir, 'bad-image-rollout.yaml'));
    const { code, stdout } = await runCli([
      'eval',
      '--scenarios',
      dir,
      '--time-scale',
      '60',
      '--read-cache',
      'off',
    ]);
    expect(stdout).toContain('1 of 1 scenario(s) fully correct.');
    expect(code).toBe(0);
  });

  it('scores a run that misses the expected outcome as incorrect, and exits 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-eval-test-'));
    dirs.push(dir);
    const scenario = parse(readFileSync(join(SCENARIOS_DIR, 'bad-image-rollout.yaml'), 'utf8')) as {
      expected: Record<string, unknown>;
    };
    scenario.expected = { ...scenario.expected, toRevision: 1 };
    writeFileSync(join(dir, 'wrong-revision.yaml'), stringify(scenario));

    const { code, stdout } = await runCli(['eval', '--scenarios', dir, '--time-scale', '60']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/bad-image-rollout\s+yes\s+yes\s+NO\s+yes\s+rollback\s+0/);
    expect(stdout).toContain('0 of 1 scenario(s) fully correct.');
  });

  it('names an unreadable scenarios directory', async () => {
    const { code, stderr } = await runCli(['eval', '--scenarios', '/nonexistent/scenarios']);
    expect(code).toBe(2);
    expect(stderr).toContain('--scenarios /nonexistent/scenarios cannot be read');
  });

  it('names a bad --read-cache by the rule of serve --read-cache, before any scenario runs', async () => {
    const { code, stderr } = await runCli(['eval', '--read-cache', 'informer']);
    expect(code).toBe(2);
    expect(stderr).toContain("--read-cache: must be 'off' or 'watch'.");
    expect(stderr).not.toContain('eval: ');
  });
});

function report(
  overrides: Omit<Partial<Report>, 'action'> & { action?: Partial<Report['action']> } = {},
): Report {
  const { action, ...rest } = overrides;
  return {
    id: 'inv_0000000000000000',
    symptom: 's',
    namespace: 'shop',
    status: 'done',
    summary: '',
    culprit: { kind: 'Deployment', namespace: 'shop', name: 'checkout' },
    cause: 'crash_loop',
    diagnosis:
      'Deployment shop/checkout (revision 3 (checkout:2.4.1)) crash-loops since its rollout 14 minutes ago; revision 2 (checkout:2.4.0) was healthy.',
    evidence: [],
    facts: {},
    verification: { healthy: true, state: 'complete', message: 'ok', attempts: 1 },
    pending_approval_ids: [],
    error: null,
    ...rest,
    action: {
      kind: 'rollback',
      refusal: null,
      explanation: '',
      call: {
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'checkout', to_revision: 2 },
      },
      preview: null,
      status: 'executed',
      approval_request_id: 'apr_1',
      decided_by: 'local',
      requested_by: 'investigator',
      decision_reason: null,
      outcome: null,
      warnings: [],
      ...action,
    },
  };
}

const EXPECTED = {
  culprit: { kind: 'Deployment', namespace: 'shop', name: 'checkout' },
  diagnosis: 'Revision 3 crash-loops since its rollout; revision 2 was healthy.',
  action: 'rollback',
  toRevision: 2,
};

describe('score', () => {
  it('needs the right culprit, failure mode, revision, and a verified remediation', () => {
    expect(score(report(), EXPECTED)).toEqual({
      culprit_found: true,
      diagnosis_correct: true,
      remediation_correct: true,
    });
    expect(
      score(report({ culprit: { kind: 'Deployment', namespace: 'shop', name: 'cart' } }), EXPECTED),
    ).toMatchObject({
      culprit_found: false,
      diagnosis_correct: false,
    });
    expect(score(report({ cause: 'image_pull' }), EXPECTED).diagnosis_correct).toBe(false);
    expect(
      score(
        report({ verification: { healthy: false, state: 'progressing', message: '', attempts: 8 } }),
        EXPECTED,
      ).remediation_correct,
    ).toBe(false);
    expect(score(report({ action: { status: 'declined' } }), EXPECTED).remediation_correct).toBe(false);
    expect(
      score(
        report({ action: { call: { tool: 'rollback_deployment', arguments: { to_revision: 1 } } } }),
        EXPECTED,
      ),
    ).toMatchObject({ diagnosis_correct: true, remediation_correct: false });
    expect(
      score(report({ diagnosis: 'Revision 4 crash-loops; revision 2 was healthy.' }), EXPECTED),
    ).toMatchObject({
      diagnosis_correct: false,
      remediation_correct: true,
    });
  });

  it('with expected.verification reverted, needs the revert reported by that field manager', () => {
    const expected = {
      ...EXPECTED,
      verification: { state: 'reverted' as const, revertedBy: 'argocd-application-controller' },
    };
    const reverted = (by: string) =>
      report({
        verification: {
          healthy: false,
          state: 'reverted',
          message: `reverted by ${by} at 2026-12-02T01:40:00.000Z (image)`,
          attempts: 1,
          reverted_by: by,
          reverted_at: '2026-12-02T01:40:00.000Z',
        },
      });
    expect(score(reverted('argocd-application-controller'), expected).remediation_correct).toBe(true);
    expect(score(reverted('flux'), expected).remediation_correct).toBe(false);
    // Reporting success although the state was reverted is wrong.
    expect(score(report(), expected).remediation_correct).toBe(false);
    // And a revert where none is expected is not a verified remediation.
    expect(score(reverted('flux'), EXPECTED).remediation_correct).toBe(false);
  });

  it(
    'scores the bundled gitops-reverts-rollback run correct: the revert is reported',
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'sentinel-eval-test-'));
      copyFileSync(
        join(SCENARIOS_DIR, 'gitops-reverts-rollback.yaml'),
        join(dir, 'gitops-reverts-rollback.yaml'),
      );
      const { code, stdout } = await runCli([
        'eval',
        '--json',
        '--scenarios',
        dir,
        '--time-scale',
        '60',
      ]).finally(() => rmSync(dir, { recursive: true, force: true }));
      const [result] = JSON.parse(stdout) as EvalResult[];
      expect(result, result?.summary).toMatchObject({
        scenario: 'gitops-reverts-rollback',
        culprit_found: true,
        diagnosis_correct: true,
        remediation_correct: true,
        action: 'rollback',
        verified: false,
        unapproved_mutations: 0,
      });
      expect(result!.summary).toContain('reverted by argocd-application-controller');
      expect(code).toBe(0);
    },
  );

  it('matches refusals by reason and a healthy namespace by its absent culprit', () => {
    const paused = {
      culprit: EXPECTED.culprit,
      diagnosis: 'The rollout is paused mid-way.',
      action: 'refused:deployment-paused',
    };
    const refused = report({
      action: { kind: 'refused', refusal: 'deployment-paused', call: null, status: null },
    });
    expect(score(refused, paused)).toEqual({
      culprit_found: true,
      diagnosis_correct: true,
      remediation_correct: true,
    });
    expect(score(refused, { ...paused, action: 'refused:unschedulable' }).remediation_correct).toBe(false);
    const healthy = report({
      culprit: null,
      cause: null,
      action: { kind: 'none', call: null, status: null },
    });
    expect(score(healthy, { diagnosis: 'Nothing is wrong; everything is healthy.', action: 'none' })).toEqual(
      {
        culprit_found: true,
        diagnosis_correct: true,
        remediation_correct: true,
      },
    );
  });
});

describe('renderEvalTable', () => {
  const base: EvalResult = {
    scenario: 'a',
    step: 1,
    steps: 1,
    culprit_found: true,
    diagnosis_correct: true,
    remediation_correct: true,
    facts_correct: true,
    warnings_correct: true,
    untouched_correct: true,
    logs_read_correct: true,
    unapproved_mutations: 0,
    seconds: 1.25,
    action: 'rollback',
    expected_action: 'rollback',
    verified: true,
    summary: '',
  };

  it('marks what was wrong and counts the fully correct scenarios', () => {
    const text = renderEvalTable([
      base,
      { ...base, scenario: 'b', remediation_correct: false, action: 'none' },
    ]);
    expect(text).toContain('none (expected rollback)');
    expect(text).toContain('1 of 2 scenario(s) fully correct.');
    const details = renderEvalTable([base, { ...base, scenario: 'c', untouched_correct: false }]);
    expect(details.split('\n')[0]).toContain('DETAILS');
    expect(details).toContain('1 of 2 scenario(s) fully correct.');
    const stepped = renderEvalTable([
      { ...base, scenario: 's', steps: 2 },
      { ...base, scenario: 's', step: 2, steps: 2 },
    ]);
    expect(stepped).toMatch(/^s \(1\/2\)\s+yes/m);
    expect(stepped).toMatch(/^s \(2\/2\)\s+yes/m);
    expect(stepped).toContain('1 of 1 scenario(s) fully correct (2 of 2 investigations).');
  });

  it('counts scenarios and investigations apart when a scenario has steps', () => {
    const stepped = renderEvalTable([
      { ...base, scenario: 'a' },
      { ...base, scenario: 's', steps: 2 },
      { ...base, scenario: 's', step: 2, steps: 2, facts_correct: false },
    ]);
    // One wrong step makes its scenario wrong; the other step still counts as a correct investigation.
    expect(stepped).toContain('1 of 2 scenario(s) fully correct (2 of 3 investigations).');
  });
});

describe('scoreDetails', () => {
  const expected = {
    diagnosis: 'postgres is OOM-killed',
    action: 'rollback',
    facts: { memory_limit: '64Mi', affected: 'Deployment shop/checkout' },
    warnings: ['target_unhealthy'],
    untouched: [{ kind: 'Deployment', namespace: 'shop', name: 'checkout' }],
    logsRead: [{ container: 'checkout', previous: true }],
  };
  const mutation = (name: string) => ({
    time: '',
    identity: 'sentinel',
    verb: 'patch' as const,
    path: `/apis/apps/v1/namespaces/shop/deployments/${name}`,
    resource: 'deployments.apps',
    namespace: 'shop',
    name,
    dryRun: false,
    code: 200,
  });
  const investigation = (container: string, previous: boolean) =>
    ({
      steps: [
        {
          calls: [
            {
              tool: 'get_pod_logs',
              status: 'succeeded',
              arguments: { namespace: 'shop', pod: 'p', container, previous },
            },
          ],
        },
      ],
    }) as never;

  it('scores each stated field, and only what the run shows', () => {
    const good = report({
      facts: { memory_limit: '64Mi', affected: 'Deployment shop/checkout', failure: 'oom_killed' },
      action: { warnings: [{ kind: 'target_unhealthy', message: 'm' }] },
    });
    expect(scoreDetails(good, investigation('checkout', true), [mutation('postgres')], expected)).toEqual({
      facts_correct: true,
      warnings_correct: true,
      untouched_correct: true,
      logs_read_correct: true,
    });
    expect(
      scoreDetails(
        report({ facts: { memory_limit: '128Mi' } }),
        investigation('checkout', false),
        [mutation('checkout')],
        expected,
      ),
    ).toEqual({
      facts_correct: false,
      warnings_correct: false,
      untouched_correct: false,
      logs_read_correct: false,
    });
  });
});
