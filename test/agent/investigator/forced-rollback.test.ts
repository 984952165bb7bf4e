/**
 * The StatefulSet forced rollback end to end (agent/investigator/forced-rollback.ts): the bundled
 * statefulset-bad-rollout scenario on the simulator, the real tools and gate in an in-process
 * server. After the approved rollback the OrderedReady controller stays stuck on postgres-2; the
 * investigator proposes deleting exactly that Pod as its own approval request with its own evidence,
 * and verification follows the human's answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalPrompter } from '../../../agent/harness/prompter.ts';
import { renderMarkdown } from '../../../agent/investigator/report.ts';
import {
  runLocalInvestigation,
  type LocalInvestigationOptions,
} from '../../../agent/investigator/session.ts';
import { openInvestigationStore } from '../../../agent/investigator/store.ts';
import type { Pod, StatefulSet } from '../../../deploy/sim/types.ts';
import { capture, startIncident, type Incident } from '../../helpers/incident.ts';

/** Answers the questions from a script (a rollback or Pod deletion asks for its name typed). */
function scripted(answers: string[]): ApprovalPrompter {
  return {
    async ask() {
      return answers.shift();
    },
    async confirm() {
      const answer = answers.shift();
      return answer === undefined ? undefined : /^y/i.test(answer);
    },
    close() {},
  };
}

describe('StatefulSet forced rollback', { timeout: 240_000 }, () => {
  let incident: Incident | undefined;
  afterEach(async () => {
    await incident?.close();
    incident = undefined;
  });

  const investigate = async (
    prompter: ApprovalPrompter | undefined,
    extra: Partial<LocalInvestigationOptions> = {},
  ) => {
    const running = incident!;
    const progress = capture();
    const result = await runLocalInvestigation({
      symptom: running.sim.scenario.symptom,
      namespace: 'shop',
      server: `${running.server.url}/mcp`,
      token: running.server.token,
      dataDir: running.dataDir,
      progress,
      prompter,
      pollMs: 50,
      verifyAttempts: 4,
      verifyWaitSeconds: 2,
      settleSeconds: 0,
      clusterNow: () => running.sim.clock.now(),
      ...extra,
    });
    return { ...result, progress: progress.text() };
  };

  it('after the approved rollback, deletes the stuck Pod on its own approval and verifies the set healthy', async () => {
    incident = await startIncident('statefulset-bad-rollout');
    const { report, investigation, progress } = await investigate(scripted(['postgres', 'postgres-2']));

    expect(report.action).toMatchObject({
      call: {
        tool: 'rollback_deployment',
        arguments: { name: 'postgres', kind: 'StatefulSet', to_revision: 2 },
      },
      status: 'executed',
    });
    const [followUp] = report.follow_ups!;
    expect(report.follow_ups).toHaveLength(1);
    expect(followUp).toMatchObject({
      purpose: 'forced_rollback',
      tool: 'delete_pod',
      arguments: { namespace: 'shop', name: 'postgres-2' },
      status: 'executed',
      decided_by: 'local',
      preview: expect.stringContaining(
        'Delete Pod shop/postgres-2 after its grace period (30 s); StatefulSet shop/postgres recreates it under the same name and claims data-postgres-2',
      ),
    });
    // Its own evidence: the Pod list that shows it stuck at the bad revision (3) after the rollback (now 4).
    expect(followUp!.evidence).toEqual([
      {
        source: expect.stringMatching(
          /^list_pods namespace=shop label_selector=statefulset\.kubernetes\.io\/pod-name in \(postgres-0,/,
        ),
        line: expect.stringContaining(
          'Pod shop/postgres-2 still runs revision 3 and is not ready (CrashLoopBackOff) while StatefulSet shop/postgres rolls back to revision 4',
        ),
      },
    ]);
    expect(report.verification).toMatchObject({ healthy: true, state: 'complete' });
    expect(report.summary).toContain('Forced rollback: Delete Pod shop/postgres-2');

    // Two approval requests, each decided by the human and executed once.
    const rollback = await incident.approvals.get(report.action.approval_request_id!);
    const deletion = await incident.approvals.get(followUp!.approval_request_id!);
    expect(rollback.id).not.toBe(deletion.id);
    for (const request of [rollback, deletion]) {
      expect(request).toMatchObject({ requester: 'investigator', status: 'executed' });
      expect(request.decision).toMatchObject({ decision: 'allow', by: 'local' });
      expect(request.executions).toHaveLength(1);
    }
    expect(deletion.tool).toBe('delete_pod');
    expect(deletion.reason).toContain('Forced rollback of StatefulSet shop/postgres');

    // The cluster saw exactly the two approved changes: the rollback patch, then the Pod's DELETE.
    expect(incident.mutations().map((m) => [m.verb, m.resource, m.name])).toEqual([
      ['patch', 'statefulsets.apps', 'postgres'],
      ['delete', 'pods', 'postgres-2'],
    ]);
    const recreated = incident.sim.cluster.store.get<Pod>('pods', 'shop', 'postgres-2')!;
    const sts = incident.sim.cluster.store.get<StatefulSet>('statefulsets', 'shop', 'postgres')!;
    expect(recreated.metadata.labels?.['controller-revision-hash']).toBe(sts.status?.updateRevision);

    const names = investigation.steps.map((s) => s.name);
    expect(names.slice(names.indexOf('remediate'))).toEqual(
      expect.arrayContaining(['forced-rollback:preview', 'forced-rollback']),
    );
    expect(progress).toContain('Forced rollback: Pod shop/postgres-2 still runs revision 3');
    expect(renderMarkdown(report)).toContain('### Forced rollback');
  });

  it('a "no" to the Pod deletion deletes nothing and leaves the rollout reported not healthy', async () => {
    incident = await startIncident('statefulset-bad-rollout');
    const { report } = await investigate(scripted(['postgres', 'n', 'the data needs checking first']));

    expect(report.action.status).toBe('executed');
    expect(report.follow_ups).toMatchObject([
      {
        purpose: 'forced_rollback',
        arguments: { namespace: 'shop', name: 'postgres-2' },
        status: 'declined',
        decided_by: 'local',
        decision_reason: 'the data needs checking first',
      },
    ]);
    expect(report.verification).toMatchObject({ healthy: false, state: 'progressing' });
    expect(report.summary).toContain('Forced rollback proposed: Delete Pod shop/postgres-2');
    expect(incident.mutations().map((m) => [m.verb, m.resource])).toEqual([['patch', 'statefulsets.apps']]);
    expect(
      incident.sim.cluster.store.get<Pod>('pods', 'shop', 'postgres-2')!.metadata.labels?.[
        'controller-revision-hash'
      ],
    ).not.toBe(
      incident.sim.cluster.store.get<StatefulSet>('statefulsets', 'shop', 'postgres')!.status?.updateRevision,
    );
  });

  it('resumes a run stopped while the Pod deletion waits, and deletes the Pod once', async () => {
    incident = await startIncident('statefulset-bad-rollout');
    const stop = new AbortController();
    let asked = 0;
    // Approve the rollback; at the deletion's question, stop waiting (Ctrl-C).
    const prompter: ApprovalPrompter = {
      // Both are dangerous: each asks for its name typed.
      async ask() {
        asked += 1;
        if (asked === 1) return 'postgres';
        stop.abort();
        return undefined;
      },
      async confirm() {
        return undefined;
      },
      close() {},
    };
    await expect(investigate(prompter, { signal: stop.signal })).rejects.toMatchObject({ code: 'timeout' });
    const store = openInvestigationStore(incident.dataDir);
    const saved = store.load(store.list()[0]!);
    expect(saved).toMatchObject({ status: 'awaiting_approval' });
    expect(saved.follow_ups).toMatchObject([
      { purpose: 'forced_rollback', arguments: { name: 'postgres-2' } },
    ]);
    expect(incident.mutations().map((m) => m.verb)).toEqual(['patch']);

    const { report } = await investigate(undefined, { resume: saved.id, yes: true, simulated: true });
    expect(report.follow_ups).toMatchObject([{ status: 'executed', arguments: { name: 'postgres-2' } }]);
    expect(report.verification).toMatchObject({ healthy: true, state: 'complete' });
    // The rollback ran once before the stop, the deletion once after it.
    expect(incident.mutations().map((m) => [m.verb, m.name])).toEqual([
      ['patch', 'postgres'],
      ['delete', 'postgres-2'],
    ]);
  });
});
