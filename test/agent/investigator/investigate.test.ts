/**
 * The local investigator end to end: the real tools, the real gate and approvals API in an
 * in-process server, against the Kubernetes API simulator. Scenarios are written here (besides the
 * bundled bad-image-rollout) so each playbook rule meets real tool output; `sentinel eval` (eval.test.ts)
 * scores every bundled scenario.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalPrompter } from '../../../agent/harness/prompter.ts';
import {
  runLocalInvestigation,
  type LocalInvestigationOptions,
} from '../../../agent/investigator/session.ts';
import { openInvestigationStore } from '../../../agent/investigator/store.ts';
import { renderMarkdown } from '../../../agent/investigator/report.ts';
import { succeeded } from '../../../agent/investigator/investigate-local.ts';
import { runCli } from '../../helpers/cli.ts';
import { capture, startIncident, type Incident } from '../../helpers/incident.ts';

const IMAGE = 'registry.example.com/shop/checkout';

/** A shop/checkout scenario: revision 1 at `createdAt` (default three days ago), then `changes`, with `fates`. */
function checkoutScenario(
  name: string,
  changes: unknown[],
  fates: unknown[],
  createdAt = '-3d',
): Record<string, unknown> {
  return {
    name,
    description: `test scenario ${name}`,
    symptom: 'checkout is failing',
    namespaces: ['shop'],
    deployments: [
      {
        at: createdAt,
        manifest: {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: 'checkout', namespace: 'shop', labels: { app: 'checkout' } },
          spec: {
            replicas: 2,
            selector: { matchLabels: { app: 'checkout' } },
            strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } },
            template: {
              metadata: { labels: { app: 'checkout' } },
              spec: {
                containers: [
                  {
                    name: 'checkout',
                    image: `${IMAGE}:2.4.0`,
                    resources: { limits: { memory: '512Mi' } },
                    readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
                  },
                ],
              },
            },
          },
        },
        changes,
      },
    ],
    fates,
    expected: { diagnosis: 'written by the test', action: 'none' },
  };
}

const newImage = (at: string) => ({
  at,
  changeCause: 'deploy checkout 2.4.1',
  patch: { spec: { template: { spec: { containers: [{ name: 'checkout', image: `${IMAGE}:2.4.1` }] } } } },
});
const crashLoop = {
  match: { image: `${IMAGE}:2.4.1` },
  fate: { kind: 'crashLoop', runSeconds: 2, logs: ['{"level":"fatal","msg":"invalid configuration"}'] },
};

/** Answers questions (y/N, a Deployment's name, a reason) from a script; records what was asked. */
function scriptedPrompter(answers: (string | undefined)[]): ApprovalPrompter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async ask(question) {
      asked.push(question);
      return answers.shift();
    },
    async confirm(question) {
      asked.push(question);
      const answer = answers.shift();
      return answer === undefined ? undefined : /^y/i.test(answer);
    },
    close() {},
  };
}

describe('local investigator against the simulator', { timeout: 240_000 }, () => {
  let incident: Incident | undefined;
  afterEach(async () => {
    await incident?.close();
    incident = undefined;
  });

  const investigate = async (extra: Partial<LocalInvestigationOptions> = {}) => {
    const progress = capture();
    const running = incident!;
    const result = await runLocalInvestigation({
      symptom: running.sim.scenario.symptom,
      namespace: 'shop',
      server: `${running.server.url}/mcp`,
      token: running.server.token,
      dataDir: running.dataDir,
      progress,
      pollMs: 50,
      verifyWaitSeconds: 5,
      clusterNow: () => running.sim.clock.now(),
      // The simulator: `yes` approves its rollbacks without --confirm (test/cli covers --confirm).
      simulated: true,
      ...extra,
    });
    return { ...result, progress: progress.text() };
  };

  it('rolls back a bad rollout after approval, executes it once, and verifies it healthy', async () => {
    incident = await startIncident('bad-image-rollout');
    const { investigation, report, progress } = await investigate({ yes: true });

    expect(report.culprit).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'checkout' });
    expect(report.action).toMatchObject({
      kind: 'rollback',
      call: {
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'checkout', to_revision: 2 },
      },
      status: 'executed',
      decided_by: 'local',
      requested_by: 'investigator',
    });
    expect(report.verification).toMatchObject({ healthy: true, state: 'complete' });
    expect(report.evidence).toContainEqual({
      source: expect.stringMatching(
        /^get_pod_logs namespace=shop pod=checkout-\S+ container=checkout previous=true/,
      ),
      line: '{"level":"fatal","msg":"invalid configuration: payments.idempotencyKeyHeader is required (new in 2.4.1)"}',
    });

    // The gate held the investigator's call; the human (local) approved it; one execution.
    const request = await incident.approvals.get(report.action.approval_request_id!);
    expect(request).toMatchObject({
      requester: 'investigator',
      status: 'executed',
      tool: 'rollback_deployment',
    });
    expect(request.decision).toMatchObject({ decision: 'allow', by: 'local' });
    expect(request.executions).toHaveLength(1);
    // The approver was shown the evidence (each line with its call) and this investigation's id.
    expect(request.preview?.investigation).toBe(investigation.id);
    expect(request.preview?.evidence).toContainEqual({
      line: '{"level":"fatal","msg":"invalid configuration: payments.idempotencyKeyHeader is required (new in 2.4.1)"}',
      call: expect.stringMatching(/^get_pod_logs namespace=shop pod=checkout-/),
    });
    expect(request.preview?.template_diff).toMatch(/^\+\s+image: \S+2\.4\.0$/m);
    const changes = incident.mutations();
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({
      verb: 'patch',
      resource: 'deployments.apps',
      namespace: 'shop',
      name: 'checkout',
    });
    expect(JSON.stringify(changes[0]!.patch)).toContain(request.id);

    // The transcript: triage, evidence, logs, preview, the held-then-approved call, verification,
    // then the settle window (the approved template, then six checks that it holds).
    expect(investigation.steps.map((s) => s.name)).toEqual([
      'triage',
      'evidence:checkout',
      'logs:checkout',
      'preview',
      'remediate',
      'verify:1',
      ...Array.from({ length: 7 }, (_, index) => `settle:${index}`),
    ]);
    expect(investigation.pending_approval_ids).toEqual([]);
    expect(progress).toContain('Evidence:');
    expect(progress).toContain(`held for approval: request ${request.id}`);
    expect(renderMarkdown(report)).toContain('## Verification\n\nHealthy: rollout complete');
  });

  it("an OOM kill: reads the killed Pod's metrics (get_pod_metrics) once, and reports its last usage beside the limit", async () => {
    incident = await startIncident('oom-after-limit-change');
    const { investigation, report } = await investigate({ yes: true, settleSeconds: 0 });

    const metrics = investigation.steps.find((s) => s.name === 'metrics:checkout');
    expect(metrics?.calls).toHaveLength(1);
    expect(metrics?.calls[0]).toMatchObject({
      tool: 'get_pod_metrics',
      status: 'succeeded',
      arguments: { namespace: 'shop', pod: expect.stringMatching(/^checkout-/) },
    });
    expect(report.facts).toMatchObject({
      failure: 'oom_killed',
      memory_usage: '127Mi',
      memory_limit: '128Mi',
    });
    expect(report.summary).toContain('last usage 127Mi of its 128Mi limit');
    expect(report.action).toMatchObject({ kind: 'rollback', status: 'executed' });
  });

  it('--yes without --confirm stops before approving the rollback (exit 2), resumable with --confirm checkout', async () => {
    incident = await startIncident('bad-image-rollout');
    // Not the embedded simulator's exemption: as against a real cluster.
    const refused = await investigate({ yes: true, simulated: false, settleSeconds: 0 }).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'invalid_input', field: '--confirm' });
    expect((refused as Error).message).toContain('--yes approves it only with --confirm checkout');
    expect(incident.mutations()).toEqual([]);
    const store = openInvestigationStore(incident.dataDir);
    const saved = store.load(store.list()[0]!);
    expect(saved.status).toBe('awaiting_approval');
    const resumed = await investigate({
      resume: saved.id,
      yes: true,
      confirm: ['checkout'],
      simulated: false,
      settleSeconds: 0,
    });
    expect(resumed.report.action).toMatchObject({ kind: 'rollback', status: 'executed' });
  });

  it('asks at the terminal, and a "no" changes nothing and is reported as declined', async () => {
    incident = await startIncident('bad-image-rollout');
    const prompter = scriptedPrompter(['n', 'try a config fix first']);
    const { report, progress } = await investigate({ prompter });

    // A rollback asks for the Deployment's name (as `approvals approve`); "n" declines it.
    expect(prompter.asked).toEqual([
      expect.stringMatching(/\nType 'checkout' to approve apr_[0-9a-f]{16} \(Enter or n declines\): $/),
      'Reason for declining (Enter for none): ',
    ]);
    expect(progress).toContain('Roll back Deployment shop/checkout from revision 3');
    expect(report.action).toMatchObject({
      kind: 'rollback',
      status: 'declined',
      decided_by: 'local',
      decision_reason: 'try a config fix first',
    });
    expect(report.verification).toBeNull();
    expect(report.summary).toContain(
      'The human declined it (local: try a config fix first). Nothing was changed.',
    );
    expect(incident.mutations()).toEqual([]);
    const request = await incident.approvals.get(report.action.approval_request_id!);
    expect(request.status).toBe('denied');
    expect(succeeded(report)).toBe(false); // declined: unresolved, exit 1
  });

  it('refuses to act on a paused Deployment and says why, without requesting anything', async () => {
    incident = await startIncident(
      checkoutScenario(
        'paused',
        [newImage('-14m'), { at: '-10m', patch: { spec: { paused: true } } }],
        [crashLoop],
      ),
    );
    const { report, investigation } = await investigate({ yes: true });

    expect(report.culprit).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'checkout' });
    expect(report.action).toMatchObject({
      kind: 'refused',
      refusal: 'deployment-paused',
      call: null,
      status: null,
    });
    expect(report.action.explanation).toMatch(/paused/);
    expect(report.evidence).toContainEqual({
      source: 'get_deployment namespace=shop name=checkout',
      line: 'Deployment shop/checkout is paused (spec.paused: true)',
    });
    expect(investigation.steps.every((s) => s.calls.every((c) => c.read_only))).toBe(true);
    expect(incident.mutations()).toEqual([]);
  });

  it('refuses OOM kills when nothing changed recently', async () => {
    incident = await startIncident(
      checkoutScenario(
        'oom-steady',
        [],
        [{ match: { labels: { app: 'checkout' } }, fate: { kind: 'oomKilled', runSeconds: 30 } }],
        '-7h', // long enough ago not to be a recent change; short, so the replay is quick
      ),
    );
    const { report } = await investigate({ yes: true });
    expect(report.cause).toBe('oom_killed');
    expect(report.action).toMatchObject({ kind: 'refused', refusal: 'oom-no-recent-change', call: null });
    expect(incident.mutations()).toEqual([]);
    // Still broken, and nothing Sentinel can do: unresolved (exit 1), not "done".
    expect(succeeded(report)).toBe(false);
  });

  it('restarts Pods of an unchanged template that stopped being ready, then verifies them healthy', async () => {
    incident = await startIncident(
      checkoutScenario(
        'stuck',
        [],
        [
          {
            match: { labels: { app: 'checkout' }, createdBefore: '-1h' },
            fate: { kind: 'readinessFailure', since: '-20m' },
          },
        ],
      ),
    );
    const { report } = await investigate({ yes: true });
    expect(report.cause).toBe('probe_failure');
    expect(report.action).toMatchObject({
      kind: 'restart',
      call: { tool: 'restart_service', arguments: { namespace: 'shop', name: 'checkout' } },
      status: 'executed',
    });
    expect(report.verification).toMatchObject({ healthy: true });
    expect(incident.mutations()).toHaveLength(1);
  });

  it('reports an approved rollback that a GitOps controller reverts as reverted, not healthy (exit 1)', async () => {
    incident = await startIncident('gitops-reverts-rollback');
    const { investigation, report, progress } = await investigate({ yes: true });
    expect(report.action).toMatchObject({
      kind: 'rollback',
      call: { arguments: { to_revision: 2 } },
      status: 'executed',
    });
    expect(report.verification).toMatchObject({
      healthy: false,
      state: 'reverted',
      reverted_by: 'argocd-application-controller',
    });
    expect(report.verification?.message).toMatch(
      // After the rollout completed (the settle window) or, on a loaded machine, during it.
      /^reverted by argocd-application-controller at \d{4}-\d\d-\d\dT[\d:.]+Z \((container checkout image \S+:2\.4\.0 → \S+:2\.4\.1|the template Sentinel wrote was replaced during the rollout)\)$/,
    );
    expect(report.summary).toContain('REVERTED');
    expect(progress).toContain('Verification: reverted by argocd-application-controller');
    expect(succeeded(report)).toBe(false);
    // The template was read back after the rollout (settle:0 in both paths).
    expect(investigation.steps.map((s) => s.name)).toContain('settle:0');
  });

  it('keeps an approved rollback healthy when nothing changes it in the settle window', async () => {
    incident = await startIncident('bad-image-rollout');
    const { report } = await investigate({ yes: true, settleSeconds: 30 });
    expect(report.verification).toMatchObject({ healthy: true, state: 'complete', settle_seconds: 30 });
    expect(succeeded(report)).toBe(true);
  });

  it('announces a reused denial with its age, reason and how to ask again; --ask-again asks anew', async () => {
    incident = await startIncident('bad-image-rollout');
    const first = await investigate({ prompter: scriptedPrompter(['n', 'not during the sale']) });
    const denied = first.report.action.approval_request_id!;

    // A new investigation of the same incident: the server answers with that denial.
    const second = await investigate({ yes: true });
    expect(second.report.action).toMatchObject({ status: 'declined', approval_request_id: denied });
    expect(second.progress).toMatch(
      new RegExp(
        `This exact call was denied (less than a minute|\\d+ minute\\(s\\)) ago by local \\(approval request ${denied}\\): not during the sale\\. It was not run; nothing changed\\.`,
      ),
    );
    expect(second.progress).toContain(
      `To ask the approvers again: npx sentinel investigate --resume ${second.investigation.id} --ask-again`,
    );
    expect(succeeded(second.report)).toBe(false);
    expect(incident.mutations()).toEqual([]);

    // The denial was told once; the next identical call is a new request: approved, executed.
    const third = await investigate({ yes: true, askAgain: true, settleSeconds: 0 });
    expect(third.report.action.status).toBe('executed');
    expect(third.report.action.approval_request_id).not.toBe(denied);
    expect(incident.mutations()).toHaveLength(1);
  });

  it('announces a grant made for an earlier investigation when a new one uses it', async () => {
    incident = await startIncident('bad-image-rollout');
    const running = incident;
    // Investigation A asks, nobody answers at the terminal, it stops waiting (Ctrl-C).
    const controller = new AbortController();
    const progressA = capture();
    const a = runLocalInvestigation({
      symptom: running.sim.scenario.symptom,
      namespace: 'shop',
      server: `${running.server.url}/mcp`,
      token: running.server.token,
      dataDir: running.dataDir,
      progress: progressA,
      pollMs: 50,
      prompter: scriptedPrompter([]),
      signal: controller.signal,
    }).catch((error: unknown) => error);
    while (!progressA.text().includes('Waiting for a decision')) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    controller.abort();
    await a;
    const requestId = /held for approval: request (apr_\w+)/.exec(progressA.text())![1]!;
    await running.approvals.approve(requestId);

    // Investigation B, same symptom: the server uses that grant; B says so.
    const b = await investigate({ prompter: scriptedPrompter([]), settleSeconds: 0 });
    expect(b.report.action).toMatchObject({ status: 'executed', approval_request_id: requestId });
    expect(b.progress).toMatch(
      new RegExp(
        `Using approval ${requestId} granted by local (less than a minute|\\d+ minute\\(s\\)) ago for investigation inv_\\w+ \\(approved: ${requestId}\\)`,
      ),
    );
    const request = await running.approvals.get(requestId);
    expect(b.progress).toContain(`for investigation ${request.preview!.investigation}`);
    expect(request.preview!.investigation).toMatch(/^inv_/);
    expect(request.preview!.investigation).not.toBe(b.investigation.id);
    expect(running.mutations()).toHaveLength(1);
  });

  it('--ask-again re-asks at once when the server answers with an earlier denial', async () => {
    incident = await startIncident('bad-image-rollout');
    const first = await investigate({ prompter: scriptedPrompter(['n', 'wait for the freeze']) });
    const denied = first.report.action.approval_request_id!;
    const again = await investigate({ yes: true, askAgain: true, settleSeconds: 0 });
    expect(again.progress).toContain(`(approval request ${denied}): wait for the freeze.`);
    expect(again.progress).toContain('(--ask-again: a new approval request)');
    expect(again.progress).not.toContain('To ask the approvers again');
    expect(again.report.action.status).toBe('executed');
    expect(again.report.action.approval_request_id).not.toBe(denied);
  });

  it('--resume <id> --ask-again asks the approvers again after a decline (a new request, a prompt)', async () => {
    incident = await startIncident('bad-image-rollout');
    const first = await investigate({ prompter: scriptedPrompter(['n', 'wrong fix']) });
    const denied = first.report.action.approval_request_id!;
    // A new investigation meets that denial and prints how to ask again.
    const second = await investigate({ prompter: scriptedPrompter([]) });
    expect(second.report.action).toMatchObject({ status: 'declined', approval_request_id: denied });
    const hint = `To ask the approvers again: npx sentinel investigate --resume ${second.investigation.id} --ask-again`;
    expect(second.progress).toContain(hint);

    // The printed hint: resume that investigation with --ask-again; the human is asked anew.
    const prompter = scriptedPrompter(['checkout']);
    const again = await investigate({
      resume: second.investigation.id,
      askAgain: true,
      prompter,
      settleSeconds: 0,
    });
    expect(prompter.asked.length).toBeGreaterThan(0);
    expect(again.investigation.id).toBe(second.investigation.id);
    expect(again.report.action.status).toBe('executed');
    expect(again.report.action.approval_request_id).not.toBe(denied);
    expect(incident.mutations()).toHaveLength(1);
    // The declined attempt stays in the record.
    expect(again.investigation.steps.map((s) => s.name)).toContain('remediate:declined:1');
  });

  it('proposes nothing for a healthy namespace', async () => {
    incident = await startIncident(checkoutScenario('healthy', [], []));
    const { report, investigation } = await investigate({ yes: true });
    expect(report).toMatchObject({ culprit: null, cause: null, status: 'done' });
    expect(report.action).toMatchObject({ kind: 'none', call: null });
    expect(report.summary).toBe('Nothing in namespace shop is unhealthy. No remediation proposed.');
    expect(investigation.steps.map((s) => s.name)).toEqual(['triage']);
    expect(succeeded(report)).toBe(true);
  });

  /** `sentinel investigate` (in-process CLI) against the incident's server. */
  const investigateCli = (...args: string[]) =>
    runCli([
      'investigate',
      'checkout returns 502',
      '--server',
      `${incident!.server.url}/mcp`,
      '--token',
      incident!.server.token,
      '--data-dir',
      incident!.dataDir,
      ...args,
    ]);

  it('rejects a --settle-seconds that is not a whole number of seconds, naming the flag (exit 2)', async () => {
    const { code, stderr } = await runCli(['investigate', 'x', '-n', 'shop', '--settle-seconds', '1.5']);
    expect(code).toBe(2);
    expect(stderr).toContain('--settle-seconds');
    expect(stderr).toContain('must be a whole number of seconds from 0 to 3600');
  });

  it('refuses a mistyped namespace before investigating, naming the close one (usage, exit 2)', async () => {
    incident = await startIncident('bad-image-rollout');
    const { code, stdout, stderr } = await investigateCli('--namespace', 'shpo', '--json');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(
      "--namespace 'shpo': namespace shpo not found on cluster 'sentinel-sim'. Did you mean 'shop'?",
    );
    expect(stderr).not.toContain('Investigation inv_');
    expect(incident.mutations()).toEqual([]);
  });

  it('refuses a namespace that does not exist, with how to list them (usage, exit 2)', async () => {
    incident = await startIncident('bad-image-rollout');
    const { code, stderr } = await investigateCli('--namespace', 'nope', '--json');
    expect(code).toBe(2);
    expect(stderr).toContain(
      "--namespace 'nope': namespace nope not found on cluster 'sentinel-sim'. `kubectl get namespaces` lists the namespaces that exist.",
    );
    expect(incident.mutations()).toEqual([]);
  });

  it('refuses a mistyped --deployment before investigating, naming the close one (usage, exit 2)', async () => {
    incident = await startIncident('bad-image-rollout');
    const typo = await investigateCli('--namespace', 'shop', '--deployment', 'chekout');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      "--deployment 'chekout': Deployment chekout not found in namespace shop. Did you mean 'checkout'?",
    );
    const far = await investigateCli('--namespace', 'shop', '--deployment', 'nope');
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('`kubectl get deployments -n shop` lists the Deployments that exist.');
    expect(incident.mutations()).toEqual([]);
  });
});
