import { describe, expect, it } from 'vitest';
import { rollbackDeployment } from '../../../tools/remediate/rollback-deployment.ts';
import { mockApi, statusBody } from '../../helpers/kube.ts';
import { dryRunContext, executeContext, structured, useRemediationApi } from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';
import { controllerRevision, mockRevisioned, workload, workloadPath } from '../../helpers/workloads.ts';

const api = useRemediationApi();

const IMAGES: Record<number, string> = {
  3: 'db/postgres:15.5',
  4: 'db/postgres:16.1',
  5: 'db/postgres:16.2-bad',
};

function statefulSet(current: number, extra: Partial<Parameters<typeof workload>[0]> = {}) {
  const sts = workload({ kind: 'StatefulSet', name: 'postgres', image: IMAGES[current]!, ...extra });
  const revisions = [3, 4, 5].map((n) => controllerRevision(sts, n, IMAGES[n]!));
  return { sts, revisions };
}

describe('rollback_deployment with kind StatefulSet or DaemonSet', () => {
  it('rejects an unknown kind before any call', () => {
    const parse = (args: unknown) => rollbackDeployment.input.safeParse(args);
    expect(parse({ namespace: 'shop', name: 'postgres', kind: 'StatefulSet' }).success).toBe(true);
    const bad = parse({ namespace: 'shop', name: 'postgres', kind: 'statefulset' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain("must be 'Deployment', 'StatefulSet' or 'DaemonSet'");
  });

  it('previews a rollback to the previous ControllerRevision, naming kind, revision and hash', async () => {
    const { sts, revisions } = statefulSet(5);
    const scope = mockRevisioned(sts, [revisions[2]!, revisions[0]!, revisions[1]!]);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', dry_run: true },
      dryRunContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result).toMatchObject({
      status: 'preview',
      summary:
        'Roll back StatefulSet shop/postgres from revision 5 (db/postgres:16.2-bad) to revision 4 (db/postgres:16.1)',
      target: { kind: 'StatefulSet', namespace: 'shop', name: 'postgres', uid: 'uid-postgres' },
      resolved_arguments: { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 4 },
      new_revision: 6,
      changes: [{ kind: 'image', from: 'db/postgres:16.2-bad', to: 'db/postgres:16.1' }],
    });
    expect(result.effect).toMatchObject({
      kind: 'StatefulSet',
      from_revision: 5,
      to_revision: 4,
      to_controller_revision: 'postgres-h4',
      to_revision_hash: 'h4',
      new_revision: 6,
    });
    expect(output.text).toContain(
      'Revision 4 is renumbered: the StatefulSet controller makes the restored template the newest revision, 6',
    );
  });

  it("applies the revision's data with the resourceVersion precondition and the attribution", async () => {
    const { sts, revisions } = statefulSet(5);
    mockRevisioned(sts, revisions);
    let sent: Record<string, unknown> | undefined;
    const patch = mockApi()
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .patch(workloadPath(sts), (body: Record<string, unknown>) => ((sent = body), true))
      .query({ fieldManager: 'sentinel' })
      .reply(200, { ...sts, metadata: { ...(sts.metadata as object), generation: 5 } });
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 3, reason: 'bad upgrade' },
      executeContext(api.cluster, 'apr_1'),
    );
    patch.done();
    expect(sent).toEqual({
      spec: (revisions[0]!.data as { spec: unknown }).spec,
      metadata: {
        resourceVersion: '500',
        annotations: {
          'sentinel.dev/reason': 'bad upgrade',
          'sentinel.dev/approval-request-id': 'apr_1',
          'kubernetes.io/change-cause':
            'roll back from revision 5 to revision 3 — bad upgrade (sentinel, approval request apr_1)',
        },
      },
    });
    expect((sent!.spec as { template: { $patch: string } }).template.$patch).toBe('replace');
    const result = structured(output);
    expect(result.status).toBe('applied');
    expect(output.text).toContain(
      "Done: Rolled back StatefulSet shop/postgres from revision 5 (db/postgres:16.2-bad) to revision 3's template",
    );
    expect(output.text).toMatch(/, now revision 6\.\n/);
    expect(result.rollout_status).toEqual({
      state: 'progressing',
      message: 'Waiting for statefulset spec update to be observed...',
    });
    expect(output.text).toContain(
      'get_rollout_status {"namespace":"shop","name":"postgres","kind":"StatefulSet"',
    );
  });

  it('skips the rollback when the current template already matches the target', async () => {
    const { sts, revisions } = statefulSet(4);
    mockRevisioned(sts, revisions);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 4 },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result.status).toBe('no_op');
    expect(result.summary).toBe(
      'Skipped rollback: the current template of StatefulSet shop/postgres already matches revision 4 (db/postgres:16.1)',
    );
    expect(result.effect.no_op).toBe(true);
  });

  it('names the revisions there are when the target is missing, and refuses with only one revision', async () => {
    const { sts, revisions } = statefulSet(5);
    mockRevisioned(sts, revisions);
    const missing = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 1, dry_run: true },
      dryRunContext(api.cluster),
    );
    expect(missing.code).toBe('not_found');
    expect(missing.message).toContain('its revisions are 3, 4, 5');
    mockRevisioned(sts, [revisions[2]!]);
    const only = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', dry_run: true },
      dryRunContext(api.cluster),
    );
    expect(only.message).toContain('has no last revision to roll back to (revisions: 5)');
  });

  it('ignores ControllerRevisions another object controls', async () => {
    const { sts, revisions } = statefulSet(5);
    const other = controllerRevision(
      { ...sts, metadata: { ...(sts.metadata as object), uid: 'someone-else' } },
      9,
      'x:1',
    );
    mockRevisioned(sts, [...revisions, other]);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.effect).toMatchObject({ to_revision: 4, new_revision: 6 });
  });

  it('retries a 409 when only the status moved, and refuses when the revision changed', async () => {
    const { sts, revisions } = statefulSet(5);
    mockRevisioned(sts, revisions);
    const moved = { ...sts, metadata: { ...(sts.metadata as object), resourceVersion: '501' } };
    const bodies: Record<string, unknown>[] = [];
    mockApi()
      .patch(workloadPath(sts), (body: Record<string, unknown>) => (bodies.push(body), true))
      .query(true)
      .reply(409, statusBody(409, 'Conflict', 'the object has been modified'));
    mockRevisioned(moved, revisions);
    mockApi()
      .patch(workloadPath(sts), (body: Record<string, unknown>) => (bodies.push(body), true))
      .query(true)
      .reply(200, moved);
    await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet' },
      executeContext(api.cluster),
    );
    expect(bodies.map((b) => (b.metadata as { resourceVersion: string }).resourceVersion)).toEqual([
      '500',
      '501',
    ]);

    mockRevisioned(sts, revisions);
    mockApi()
      .patch(workloadPath(sts))
      .query(true)
      .reply(409, statusBody(409, 'Conflict', 'the object has been modified'));
    const renumbered = revisions.map((r, i) => (i === 1 ? { ...r, revision: 6 } : r));
    mockRevisioned(moved, renumbered);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet' },
      executeContext(api.cluster),
    );
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('nothing was changed');
  });

  it('rolls a DaemonSet back with a strategic merge patch to daemonsets', async () => {
    const ds = workload({ kind: 'DaemonSet', name: 'node-agent', image: 'ops/agent:2' });
    const revisions = [controllerRevision(ds, 1, 'ops/agent:1'), controllerRevision(ds, 2, 'ops/agent:2')];
    mockRevisioned(ds, revisions);
    const patch = mockApi().patch(workloadPath(ds)).query({ fieldManager: 'sentinel' }).reply(200, ds);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'node-agent', kind: 'DaemonSet' },
      executeContext(api.cluster),
    );
    patch.done();
    const result = structured(output);
    expect(result.summary).toBe(
      'Roll back DaemonSet shop/node-agent from revision 2 (ops/agent:2) to revision 1 (ops/agent:1)',
    );
    expect(result.rollout_status?.state).toBe('complete');
  });
});
