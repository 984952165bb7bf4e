import { describe, expect, it } from 'vitest';
import { rollbackDeployment } from '../../../tools/remediate/rollback-deployment.ts';
import type { Deployment, ReplicaSet } from '../../../tools/kube/types.ts';
import { deployment, podTemplate, replicaSet } from '../../helpers/fixtures.ts';
import { mockApi, statusBody } from '../../helpers/kube.ts';
import {
  APPS,
  dryRunContext,
  edit,
  executeContext,
  mockObserve,
  mockTargetHealth,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';

const PATH = `${APPS}/shop/deployments/checkout`;
const IMAGES: Record<number, string> = {
  1: 'shop/checkout:2.3.0',
  2: 'shop/checkout:2.3.1',
  3: 'shop/checkout:2.3.2',
  5: 'shop/checkout:2.4.0-rc1',
  6: 'shop/checkout:2.4.0',
  7: 'shop/checkout:2.4.1',
  9: 'shop/checkout:2.5.0',
  10: 'shop/checkout:2.6.0',
};

/** A Deployment at revision `current` and one ReplicaSet per revision (the current one running). */
function history(revisions: number[], current: number, extra: { paused?: boolean } = {}) {
  const dep = deployment({
    name: 'checkout',
    image: IMAGES[current],
    revision: current,
    generation: 4,
    ...extra,
  }) as Deployment;
  dep.metadata!.resourceVersion = '1234';
  const sets = revisions.map((revision) =>
    replicaSet({
      deployment: dep as never,
      revision,
      hash: `h${revision}`,
      image: IMAGES[revision],
      replicas: revision === current ? 3 : 0,
      // 20 minutes apart: every earlier revision served long enough to count as healthy.
      createdMinutesAgo: 1000 - revision * 20,
    }),
  ) as ReplicaSet[];
  return { dep, sets };
}

/** The PATCH response: the Deployment with the new template, not yet observed by the controller. */
function patched(dep: Deployment, template: unknown): Deployment {
  return edit(dep, (d) => {
    d.spec!.template = template as never;
    d.metadata!.generation = 5;
    d.metadata!.resourceVersion = '1240';
  });
}

const api = useRemediationApi();

describe('rollback_deployment', () => {
  it('is destructive, not idempotent, supports dry runs, and rejects bad input before any call', () => {
    expect(rollbackDeployment.risk).toBe('destructive');
    expect(rollbackDeployment.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(rollbackDeployment.supportsDryRun).toBe(true);
    const parse = (args: unknown) => rollbackDeployment.input.safeParse(args).success;
    expect(parse({ namespace: 'shop', name: 'checkout' })).toBe(true);
    expect(parse({ namespace: 'shop', name: 'checkout', to_revision: 0 })).toBe(false);
    expect(parse({ namespace: 'shop', name: 'checkout', to_revision: 2.5 })).toBe(false);
    expect(parse({ namespace: 'shop', name: 'checkout', dryrun: true })).toBe(false);
    expect(parse({ namespace: 'Shop', name: 'checkout' })).toBe(false);
    expect(parse({ namespace: 'shop', name: 'checkout', reason: '' })).toBe(false);
  });

  it('previews a rollback to the previous revision without sending anything', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    const scope = mockObserve(dep, sets);
    mockTargetHealth(dep);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', dry_run: true },
      dryRunContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result).toMatchObject({
      tool: 'rollback_deployment',
      status: 'preview',
      dry_run: true,
      summary:
        'Roll back Deployment shop/checkout from revision 7 (shop/checkout:2.4.1) to revision 6 (shop/checkout:2.4.0)',
      cluster: { context: 'test-ctx', server: 'https://k8s.test:6443' },
      resolved_arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
      new_revision: 8,
      changes: [
        {
          kind: 'image',
          container: 'app',
          from: 'shop/checkout:2.4.1',
          to: 'shop/checkout:2.4.0',
          text: 'container app: image shop/checkout:2.4.1 → shop/checkout:2.4.0',
        },
      ],
      warnings: [],
    });
    expect(result.effect).toMatchObject({
      tool: 'rollback_deployment',
      target: { kind: 'Deployment', namespace: 'shop', name: 'checkout', uid: 'uid-checkout' },
      from_revision: 7,
      to_revision: 6,
      to_replicaset: 'checkout-h6',
      from_images: ['app=shop/checkout:2.4.1'],
      to_images: ['app=shop/checkout:2.4.0'],
      new_revision: 8,
    });
    expect(JSON.stringify(result.effect)).not.toContain('1234');
    // Reported outside the effect: an autoscaler moving the generation does not make the approval stale.
    expect(result.effect).not.toHaveProperty('target.generation');
    expect(result.target).toMatchObject({ uid: 'uid-checkout', generation: 4 });
    expect(output.text).toContain('DRY RUN — nothing was changed.');
    expect(output.text).toContain(
      'rollback_deployment {"namespace":"shop","name":"checkout","to_revision":6}',
    );
  });

  it('computes the same effect for the resolved call as for the default one', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    mockObserve(dep, sets);
    mockTargetHealth(dep);
    mockObserve(dep, sets);
    mockTargetHealth(dep);
    const first = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    const again = structured(
      await callTool(
        rollbackDeployment,
        { ...first.resolved_arguments, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(again.effect).toEqual(first.effect);
    expect(again.resolved_arguments).toEqual(first.resolved_arguments);
  });

  it('sends the JSON Patch kubectl sends, with the resourceVersion precondition and attribution', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    dep.metadata!.annotations = {
      ...dep.metadata!.annotations,
      'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Deployment"}',
      'kubernetes.io/change-cause': 'deploy 2.4.1',
      team: 'payments',
      'sentinel.dev/approval-request-id': 'ar-old',
    };
    sets[1]!.metadata!.annotations = {
      ...sets[1]!.metadata!.annotations,
      'kubernetes.io/change-cause': 'deploy 2.4.0',
      'deployment.kubernetes.io/revision-history': '2',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
      'sentinel.dev/reason': 'an older reason',
      'example.com/owner': 'team-a',
    };
    const expectedTemplate = podTemplate('checkout', ['shop/checkout:2.4.0']);
    let body: unknown;
    const scope = mockObserve(dep, sets)
      .patch(PATH, (sent) => {
        body = sent;
        return true;
      })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/json-patch+json')
      .reply(200, patched(dep, expectedTemplate));
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', reason: 'checkout 502s since 02:10' },
      executeContext(api.cluster, 'ar-42'),
    );
    scope.done();
    const changeCause =
      'roll back from revision 7 to revision 6 ("deploy 2.4.0") — checkout 502s since 02:10 (sentinel, approval request ar-42)';
    expect(body).toEqual([
      { op: 'replace', path: '/spec/template', value: expectedTemplate },
      {
        op: 'replace',
        path: '/metadata/annotations',
        value: {
          // kept from the Deployment (kubectl's annotationsToSkip)
          'deployment.kubernetes.io/revision': '7',
          'kubectl.kubernetes.io/last-applied-configuration': '{"kind":"Deployment"}',
          // carried over from the target ReplicaSet; the controller's bookkeeping is not
          'example.com/owner': 'team-a',
          // Sentinel's attribution (the old sentinel.dev values are gone)
          'kubernetes.io/change-cause': changeCause,
          'sentinel.dev/reason': 'checkout 502s since 02:10',
          'sentinel.dev/approval-request-id': 'ar-42',
        },
      },
      { op: 'replace', path: '/metadata/resourceVersion', value: '1234' },
    ]);
    const result = structured(output);
    expect(result).toMatchObject({
      status: 'applied',
      dry_run: false,
      new_revision: 8,
      rollout_status: { state: 'progressing' },
      recorded: {
        field_manager: 'sentinel',
        annotations: {
          'kubernetes.io/change-cause': changeCause,
          'sentinel.dev/reason': 'checkout 502s since 02:10',
          'sentinel.dev/approval-request-id': 'ar-42',
        },
      },
    });
    expect(result.changes.map((c) => c.text)).toEqual([
      'container app: image shop/checkout:2.4.1 → shop/checkout:2.4.0',
      'Deployment annotation example.com/owner: (none) → team-a',
      'Deployment annotation team: payments → (none)',
    ]);
    // Kubernetes renumbers the restored revision as the newest, as after `kubectl rollout undo`.
    expect(output.text).toContain(
      "Done: Rolled back Deployment shop/checkout from revision 7 (shop/checkout:2.4.1) to revision 6's template (shop/checkout:2.4.0), now revision 8.",
    );
    expect(output.text).toContain(
      'Revision 6 is renumbered: the Deployment controller makes the restored template the newest revision, 8',
    );
    expect(output.text).toContain(
      'get_rollout_status {"namespace":"shop","name":"checkout","wait_seconds":30}',
    );
  });

  it('copies fields the client library does not model into the PATCH body (nothing dropped)', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    // Fields the API server sends that @kubernetes/client-node's models do not declare: a pod-spec
    // field newer than the library, one on a container, and one on the template's metadata.
    const unknown = edit(sets[1]!, (rs) => {
      const template = rs.spec!.template as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      template.spec.futurePodField = { mode: 'strict', limits: [1, 2] };
      template.spec.containers[0].futureContainerField = true;
      template.metadata.futureMetaField = 'kept';
    });
    let body: { path: string; value: unknown }[] = [];
    mockObserve(dep, [sets[0]!, unknown, sets[2]!])
      .patch(PATH, (sent) => {
        body = sent as typeof body;
        return true;
      })
      .query({ fieldManager: 'sentinel' })
      .reply(200, patched(dep, unknown.spec!.template));
    await callTool(rollbackDeployment, { namespace: 'shop', name: 'checkout' }, executeContext(api.cluster));
    const template = body.find((op) => op.path === '/spec/template')!.value;
    expect(template).toMatchObject({
      metadata: { futureMetaField: 'kept' },
      spec: {
        futurePodField: { mode: 'strict', limits: [1, 2] },
        containers: [{ name: 'app', image: IMAGES[6], futureContainerField: true }],
      },
    });
    // Exactly the target's template as sent, without its pod-template-hash label.
    const expected = edit(unknown.spec!.template!, (t) => {
      delete t.metadata!.labels!['pod-template-hash'];
    });
    expect(template).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it('does not skip a rollback whose target differs only in a field the client library does not model', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    // Revision 6 runs the current image but with an extra, unmodelled pod-spec field.
    const differing = edit(sets[1]!, (rs) => {
      rs.spec!.template = edit(dep.spec!.template!, (t) => {
        (t.spec as unknown as Record<string, unknown>).futurePodField = 'on';
        t.metadata!.labels = { ...t.metadata!.labels, 'pod-template-hash': 'h6' };
      });
    });
    mockObserve(dep, [sets[0]!, differing, sets[2]!]);
    mockTargetHealth(dep);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', to_revision: 6, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.status).toBe('preview');
    expect(result.effect.from_template).not.toBe(result.effect.to_template);
  });

  const CONFLICT = statusBody(
    409,
    'Conflict',
    'Operation cannot be fulfilled on deployments.apps "checkout": the object has been modified; please apply your changes to the latest version and try again',
  );

  it.each([
    [
      'only the status moved, with the new resourceVersion (RetryOnConflict)',
      // the controller updated the status meanwhile: resourceVersion moves, generation and spec do not
      (d: Deployment) => {
        d.metadata!.resourceVersion = '1250';
        d.status = { ...d.status, replicas: 4, updatedReplicas: 2 };
      },
      '1250',
    ],
    [
      'an autoscaler scaled meanwhile (replicas and generation moved, template not)',
      (d: Deployment) => {
        d.metadata!.resourceVersion = '1260';
        d.metadata!.generation = 5;
        d.spec!.replicas = 6;
      },
      '1260',
    ],
  ] as const)('retries a 409 when %s', async (_case, change, resourceVersion) => {
    const { dep, sets } = history([5, 6, 7], 7);
    const moved = edit(dep, change);
    const preconditions: unknown[] = [];
    const precondition = (body: unknown) => {
      preconditions.push((body as { path: string; value: unknown }[]).at(-1));
      return true;
    };
    const expectedTemplate = podTemplate('checkout', ['shop/checkout:2.4.0']);
    const scope = mockObserve(dep, sets).patch(PATH, precondition).query(true).reply(409, CONFLICT);
    const again = mockObserve(moved, sets)
      .patch(PATH, precondition)
      .query({ fieldManager: 'sentinel' })
      .reply(200, patched(moved, expectedTemplate));
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    scope.done();
    again.done();
    expect(preconditions).toEqual([
      { op: 'replace', path: '/metadata/resourceVersion', value: '1234' },
      { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion },
    ]);
    expect(structured(output)).toMatchObject({ status: 'applied', new_revision: 8 });
  });

  it('surfaces a 409 clearly when the template moved, re-reading once, sending one PATCH', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    const moved = edit(dep, (d) => {
      d.metadata!.resourceVersion = '1300';
      d.metadata!.generation = 5;
      d.spec!.template!.spec!.containers[0]!.image = 'shop/checkout:2.4.2';
    });
    let patches = 0;
    const scope = mockObserve(dep, sets)
      .patch(PATH, () => ++patches > 0)
      .query(true)
      .reply(409, CONFLICT);
    const reread = mockObserve(moved, sets);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    scope.done();
    reread.done();
    expect(patches).toBe(1);
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('Deployment shop/checkout changed after Sentinel read it');
    expect(error.message).toContain('resourceVersion 1234 → 1300');
    expect(error.message).toContain('generation 4 → 5');
    expect(error.message).toContain('images shop/checkout:2.4.1 → shop/checkout:2.4.2');
    expect(error.message).toContain('409 Conflict');
    expect(error.message).toContain('nothing was changed');
    expect(error.details).toMatchObject({ read_resource_version: '1234', current_resource_version: '1300' });
  });

  it('gives up with the conflict error after 3 PATCHes that all get 409', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    const scopes = [mockObserve(dep, sets).patch(PATH).query(true).reply(409, CONFLICT)];
    for (const version of ['1250', '1260']) {
      const now = edit(dep, (d) => {
        d.metadata!.resourceVersion = version;
      });
      scopes.push(mockObserve(now, sets).patch(PATH).query(true).reply(409, CONFLICT));
    }
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    for (const scope of scopes) scope.done();
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('resourceVersion 1234 → 1260');
    expect(error.message).toContain('nothing was changed');
  });

  it('refuses a paused Deployment and says how to resume, sending nothing', async () => {
    const { dep, sets } = history([6, 7], 7, { paused: true });
    const scope = mockObserve(dep, sets);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('refused');
    expect(error.message).toContain('is paused');
    expect(error.message).toContain('resume_rollout {"namespace":"shop","name":"checkout"}');
    expect(error.message).toContain('kubectl rollout resume deployment/checkout -n shop');
  });

  it('lists the revisions that exist when the target was pruned', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    mockObserve(dep, sets);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', to_revision: 3 },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('not_found');
    expect(error.field).toBe('to_revision');
    expect(error.message).toContain(
      'Revision 3 of Deployment shop/checkout not found; its revisions are 5, 6, 7',
    );
    expect(error.details).toEqual({ revisions: [5, 6, 7] });
  });

  it('skips a rollback to the template the Deployment already runs, sending nothing', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    mockObserve(dep, sets);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', to_revision: 7 },
      executeContext(api.cluster, 'ar-1'),
    );
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result.status).toBe('no_op');
    expect(result.summary).toBe(
      'Skipped rollback: the current template of Deployment shop/checkout already matches revision 7 (shop/checkout:2.4.1)',
    );
    expect(result.changes).toEqual([]);
    expect(result.effect).toMatchObject({ no_op: true, to_revision: 7 });
    expect(output.text).toContain('Nothing to do, nothing was sent');
  });

  it('says there is nothing to roll back to when there is no earlier revision', async () => {
    const { dep, sets } = history([1], 1);
    mockObserve(dep, sets);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(
      'Deployment shop/checkout has no earlier revision to roll back to (revisions: 1); nothing was sent.',
    );
  });

  it('compares non-contiguous revisions as numbers (9 comes before 10)', async () => {
    const { dep, sets } = history([3, 10, 9], 10);
    mockObserve(dep, sets);
    mockTargetHealth(dep);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.resolved_arguments).toEqual({ namespace: 'shop', name: 'checkout', to_revision: 9 });
    expect(result.summary).toContain(
      'from revision 10 (shop/checkout:2.6.0) to revision 9 (shop/checkout:2.5.0)',
    );
    expect(result.new_revision).toBe(11);
  });

  it('rolls back twice in a row as kubectl does: the renumbered revision, then back again', async () => {
    // After "undo" from 7 to 6 the controller renumbers ReplicaSet h6 to revision 8.
    const { dep, sets } = history([5, 6, 7], 7);
    const afterFirst = edit(dep, (d) => {
      d.spec!.template = podTemplate('checkout', ['shop/checkout:2.4.0']) as never;
      d.metadata!.annotations!['deployment.kubernetes.io/revision'] = '8';
    });
    const renumbered = sets.map((rs) =>
      rs.metadata!.name === 'checkout-h6'
        ? edit(rs, (r) => {
            r.metadata!.annotations!['deployment.kubernetes.io/revision'] = '8';
            r.metadata!.annotations!['deployment.kubernetes.io/revision-history'] = '6';
          })
        : rs,
    );
    mockObserve(afterFirst, renumbered);
    mockTargetHealth(afterFirst);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.summary).toBe(
      'Roll back Deployment shop/checkout from revision 8 (shop/checkout:2.4.0) to revision 7 (shop/checkout:2.4.1)',
    );
    expect(result.resolved_arguments.to_revision).toBe(7);
    expect(result.new_revision).toBe(9);
    // A plain "undo" again returns to the revision just rolled back from: the preview says so.
    expect(result.warnings.map((w) => w.kind)).toEqual(['target_rolled_back_from']);
    expect(result.warnings[0]!.message).toContain(
      'Revision 7 is the revision Deployment shop/checkout was just rolled back from',
    );
    // Revision 6 no longer exists under that number.
    mockObserve(afterFirst, renumbered);
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', to_revision: 6, dry_run: true },
      dryRunContext(api.cluster),
    );
    expect(error.message).toContain('its revisions are 5, 7, 8');
  });

  it('lists every env (secret values redacted) and resource change', async () => {
    const { dep, sets } = history([6, 7], 7);
    const current = edit(dep, (d) => {
      const app = d.spec!.template!.spec!.containers[0]!;
      app.env = [
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: 'DB_PASSWORD', value: 'hunter2-new' },
        { name: 'FEATURE_X', value: 'on' },
      ];
      app.resources = { requests: { cpu: '200m', memory: '128Mi' }, limits: { memory: '512Mi' } };
      app.command = ['serve', '--fast'];
    });
    const target = edit(sets[0]!, (rs) => {
      rs.spec!.template!.spec!.containers[0]!.env = [
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'DB_PASSWORD', value: 'hunter2-old' },
        { name: 'DATABASE_URL', value: 'postgres://app:s3cret@db:5432/shop' },
      ];
    });
    mockObserve(current, [target, sets[1]!]);
    mockTargetHealth(current);
    const output = await callTool(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout', dry_run: true },
      dryRunContext(api.cluster),
    );
    const texts = structured(output).changes.map((c) => c.text);
    expect(texts).toEqual([
      'container app: image shop/checkout:2.4.1 → shop/checkout:2.4.0',
      'container app: env LOG_LEVEL debug → info',
      'container app: env DB_PASSWORD [REDACTED] → [REDACTED]',
      'container app: env FEATURE_X on → (none)',
      'container app: env DATABASE_URL (none) → postgres://app:[REDACTED]@db:5432/shop',
      'container app: requests.cpu 200m → 100m',
      'container app: limits.memory 512Mi → 256Mi',
      'container app: command ["serve","--fast"] → (none)',
    ]);
    expect(output.text).not.toContain('hunter2');
    expect(output.text).not.toContain('s3cret');
  });

  it('warns when GitOps or an owner may undo the rollback', async () => {
    const { dep, sets } = history([6, 7], 7);
    dep.metadata!.annotations!['argocd.argoproj.io/tracking-id'] = 'shop-prod:apps/Deployment:shop/checkout';
    dep.metadata!.ownerReferences = [
      { apiVersion: 'example.com/v1', kind: 'App', name: 'checkout', uid: 'u1', controller: true },
    ];
    mockObserve(dep, sets);
    mockTargetHealth(dep);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.warnings.map((w) => w.kind)).toEqual(['owner_reference', 'argo_cd']);
    expect(result.warnings[1]!.message).toContain("application 'shop-prod'");
  });

  it('warns when the target revision crash-looped, from the events of its deleted Pods, and names the newest healthy one', async () => {
    const { dep, sets } = history([5, 6, 7], 7);
    mockObserve(dep, sets);
    // Revision 6's Pods are gone; their BackOff events (named after ReplicaSet checkout-h6) remain.
    mockTargetHealth(
      dep,
      [],
      [
        {
          metadata: { name: 'checkout-h6-x1.1', namespace: 'shop', uid: 'ev1' },
          type: 'Warning',
          reason: 'BackOff',
          message: 'Back-off restarting failed container app',
          count: 9,
          involvedObject: { kind: 'Pod', name: 'checkout-h6-x1', namespace: 'shop' },
        },
      ],
    );
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.resolved_arguments.to_revision).toBe(6);
    expect(result.warnings.map((w) => w.kind)).toEqual(['target_unhealthy']);
    expect(result.warnings[0]!.message).toContain('Revision 6 of Deployment shop/checkout');
    expect(result.warnings[0]!.message).toContain('Pod checkout-h6-x1 BackOff ×9');
    expect(result.warnings[0]!.message).toContain('newest revision with a healthy record is 5');
  });

  it('warns when the target revision never became available', async () => {
    const { dep, sets } = history([6, 7], 7);
    // Revision 6 was replaced a minute after it appeared, with no ready replica on record.
    sets[0]!.metadata!.creationTimestamp = new Date(
      Date.parse(sets[1]!.metadata!.creationTimestamp as unknown as string) - 60_000,
    ).toISOString() as never;
    mockObserve(dep, sets);
    mockTargetHealth(dep);
    const result = structured(
      await callTool(
        rollbackDeployment,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.warnings.map((w) => w.kind)).toEqual(['target_unhealthy']);
    expect(result.warnings[0]!.message).toContain('never became available');
  });

  it('names the Deployment when it does not exist', async () => {
    mockApi()
      .get(PATH)
      .reply(404, statusBody(404, 'NotFound', 'deployments.apps "checkout" not found'));
    const error = await callToolError(
      rollbackDeployment,
      { namespace: 'shop', name: 'checkout' },
      dryRunContext(api.cluster),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toContain("Deployment 'checkout' in namespace 'shop' not found");
  });
});
