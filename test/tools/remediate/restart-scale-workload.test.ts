/**
 * restart_service and scale_deployment for StatefulSets and DaemonSets (issue 15), against nock.
 */
import { describe, expect, it } from 'vitest';
import { restartService } from '../../../tools/remediate/restart-service.ts';
import { scaleDeployment } from '../../../tools/remediate/scale-deployment.ts';
import { mockApi, statusBody } from '../../helpers/kube.ts';
import {
  APPS,
  dryRunContext,
  executeContext,
  listOf,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';
import { controllerRevision, mockRevisioned, workload, workloadPath } from '../../helpers/workloads.ts';

const api = useRemediationApi();

const service = (selector: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'db', namespace: 'shop' },
  spec: { selector },
});

describe('restart_service with StatefulSets and DaemonSets', () => {
  it('resolves a Service to the one StatefulSet behind it and previews a restart that becomes the next revision', async () => {
    const sts = workload({ kind: 'StatefulSet', name: 'postgres', image: 'pg:16' });
    (sts.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels = {
      app: 'db',
    };
    mockApi()
      .get(`${APPS}/shop/deployments/db`)
      .reply(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' })
      .get('/api/v1/namespaces/shop/services/db')
      .reply(200, service({ app: 'db' }))
      .get(`${APPS}/shop/deployments`)
      .query(true)
      .reply(200, listOf('DeploymentList', []))
      .get(`${APPS}/shop/statefulsets`)
      .query(true)
      .reply(200, listOf('StatefulSetList', [sts]))
      .get(`${APPS}/shop/daemonsets`)
      .query(true)
      .reply(200, listOf('DaemonSetList', []));
    mockApi()
      .get(`${APPS}/shop/controllerrevisions`)
      .query({ labelSelector: 'app=postgres', limit: 500 })
      .reply(
        200,
        listOf('ControllerRevisionList', [
          controllerRevision(sts, 1, 'pg:15'),
          controllerRevision(sts, 2, 'pg:16'),
        ]),
      );
    const result = structured(
      await callTool(
        restartService,
        { namespace: 'shop', name: 'db', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result).toMatchObject({
      resolved_arguments: { namespace: 'shop', name: 'postgres', kind: 'StatefulSet' },
      target: { kind: 'StatefulSet', name: 'postgres' },
      new_revision: 3,
    });
    expect(result.summary).toContain(
      'Restart StatefulSet shop/postgres, the StatefulSet behind Service shop/db (revision 2, pg:16)',
    );
    expect(result.effect).toMatchObject({
      kind: 'StatefulSet',
      revision: 2,
      controller_revision: 'postgres-h2',
    });
  });

  it('restarts a DaemonSet named with kind by a strategic merge patch of restartedAt, warning about OnDelete', async () => {
    const ds = workload({
      kind: 'DaemonSet',
      name: 'agent',
      image: 'ops/agent:2',
      strategy: { type: 'OnDelete' },
    });
    mockRevisioned(ds, [controllerRevision(ds, 1, 'ops/agent:2')]);
    let sent: Record<string, any> | undefined; // eslint-disable-line @typescript-eslint/no-explicit-any
    mockApi()
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .patch(workloadPath(ds), (body: Record<string, unknown>) => ((sent = body), true))
      .query({ fieldManager: 'sentinel' })
      .reply(200, ds);
    const output = await callTool(
      restartService,
      { namespace: 'shop', name: 'agent', kind: 'DaemonSet' },
      executeContext(api.cluster, 'apr_2'),
    );
    expect(sent!.spec.template.metadata.annotations['kubectl.kubernetes.io/restartedAt']).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    expect(sent!.metadata.annotations['sentinel.dev/approval-request-id']).toBe('apr_2');
    const result = structured(output);
    expect(result.warnings.map((w) => w.kind)).toContain('on_delete');
    expect(result.rollout_status?.state).toBe('unsupported');
  });

  it('names the workloads of every kind a Service selects when it selects several', async () => {
    const sts = workload({ kind: 'StatefulSet', name: 'db', image: 'pg:16' });
    const ds = workload({ kind: 'DaemonSet', name: 'db', image: 'x:1' });
    mockApi()
      .get(`${APPS}/shop/deployments/db`)
      .reply(404, { kind: 'Status', code: 404, reason: 'NotFound', message: 'not found' })
      .get('/api/v1/namespaces/shop/services/db')
      .reply(200, service({ app: 'db' }))
      .get(`${APPS}/shop/deployments`)
      .query(true)
      .reply(200, listOf('DeploymentList', []))
      .get(`${APPS}/shop/statefulsets`)
      .query(true)
      .reply(200, listOf('StatefulSetList', [sts]))
      .get(`${APPS}/shop/daemonsets`)
      .query(true)
      .reply(200, listOf('DaemonSetList', [ds]));
    const error = await callToolError(
      restartService,
      { namespace: 'shop', name: 'db' },
      dryRunContext(api.cluster),
    );
    expect(error.message).toContain('selects the Pods of 2 workloads: DaemonSet db, StatefulSet db');
  });
});

describe('scale_deployment with kind StatefulSet', () => {
  it('warns about ordered termination, kept claims and an autoscaler, and patches statefulsets/scale', async () => {
    const sts = workload({
      kind: 'StatefulSet',
      name: 'db',
      image: 'pg:16',
      replicas: 3,
      volumeClaimTemplates: ['data'],
    });
    const hpa = {
      metadata: { name: 'db', namespace: 'shop' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db' },
        minReplicas: 2,
        maxReplicas: 5,
      },
    };
    const reads = () =>
      mockApi()
        .get(workloadPath(sts))
        .reply(200, sts)
        .get('/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers')
        .query(true)
        .reply(200, listOf('HorizontalPodAutoscalerList', [hpa], 'autoscaling/v2'));
    reads();
    const result = structured(
      await callTool(
        scaleDeployment,
        { namespace: 'shop', name: 'db', kind: 'StatefulSet', replicas: 1, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.summary).toBe('Scale StatefulSet shop/db from 3 to 1 replica');
    expect(result.resolved_arguments).toEqual({
      namespace: 'shop',
      name: 'db',
      kind: 'StatefulSet',
      replicas: 1,
    });
    const byKind = Object.fromEntries(result.warnings.map((w) => [w.kind, w.message]));
    expect(byKind.ordered_termination).toContain('highest ordinal first and one at a time');
    expect(byKind.ordered_termination).toContain('db-2, db-1');
    expect(byKind.pvc_retained).toContain('data-db-2, data-db-1 keep their data');
    expect(byKind.hpa).toContain('1 is outside its range');
    reads();
    const scale = mockApi()
      .matchHeader('content-type', 'application/merge-patch+json')
      .patch(`${workloadPath(sts)}/scale`, { spec: { replicas: 1 } })
      .query({ fieldManager: 'sentinel' })
      .reply(200, { spec: { replicas: 1 } });
    const reread = mockApi().get(workloadPath(sts)).reply(200, sts);
    await callTool(
      scaleDeployment,
      { namespace: 'shop', name: 'db', kind: 'StatefulSet', replicas: 1 },
      executeContext(api.cluster),
    );
    scale.done();
    reread.done();
  });

  it('stamps the StatefulSet first and puts the annotations back when statefulsets/scale is refused', async () => {
    const sts = workload({ kind: 'StatefulSet', name: 'db', image: 'pg:16', replicas: 3 });
    const hpa = {
      metadata: { name: 'db', namespace: 'shop' },
      spec: { scaleTargetRef: { kind: 'StatefulSet', name: 'db' }, minReplicas: 1, maxReplicas: 4 },
    };
    const bodies: unknown[] = [];
    const record = (body: unknown) => {
      bodies.push(body);
      return true;
    };
    const reads = () =>
      mockApi()
        .get(workloadPath(sts))
        .reply(200, sts)
        .get('/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers')
        .query(true)
        .reply(200, listOf('HorizontalPodAutoscalerList', [hpa], 'autoscaling/v2'));
    reads();
    const preview = structured(
      await callTool(
        scaleDeployment,
        { namespace: 'shop', name: 'db', kind: 'StatefulSet', replicas: 0, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(preview.warnings.slice(0, 2)).toEqual([
      {
        kind: 'scale_to_zero',
        message:
          'Scaling to 0 stops every Pod of StatefulSet shop/db: it serves nothing until it is scaled up again.',
      },
      {
        kind: 'hpa',
        message:
          "HorizontalPodAutoscaler 'db (min 1, max 4)' targets StatefulSet shop/db and sets its replica count itself: at 0 replicas it stops autoscaling (an autoscaler never scales up from zero) until the StatefulSet is scaled up again.",
      },
    ]);
    reads();
    const scope = mockApi()
      .patch(workloadPath(sts), record)
      .query({ fieldManager: 'sentinel' })
      .reply(200, sts)
      .patch(`${workloadPath(sts)}/scale`)
      .query(true)
      .reply(403, statusBody(403, 'Forbidden', 'cannot patch resource "statefulsets/scale"'))
      .patch(workloadPath(sts), record)
      .query(true)
      .reply(200, sts);
    const error = await callToolError(
      scaleDeployment,
      { namespace: 'shop', name: 'db', kind: 'StatefulSet', replicas: 2, reason: 'test' },
      executeContext(api.cluster, 'ar-3'),
    );
    scope.done();
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain(
      "StatefulSet shop/db was not scaled; Sentinel's annotations were put back",
    );
    expect(bodies).toEqual([
      {
        metadata: {
          annotations: { 'sentinel.dev/reason': 'test', 'sentinel.dev/approval-request-id': 'ar-3' },
        },
      },
      {
        metadata: { annotations: { 'sentinel.dev/reason': null, 'sentinel.dev/approval-request-id': null } },
      },
    ]);
  });

  it('refuses kind DaemonSet (a DaemonSet has no replica count)', () => {
    expect(
      scaleDeployment.input.safeParse({ namespace: 'shop', name: 'a', kind: 'DaemonSet', replicas: 1 })
        .success,
    ).toBe(false);
  });
});
