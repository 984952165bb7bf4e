import { describe, expect, it, vi } from 'vitest';
import { planRestart, restartService, rfc3339 } from '../../../tools/remediate/restart-service.ts';
import type { Deployment, ReplicaSet } from '../../../tools/kube/types.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';
import { mockApi, statusBody } from '../../helpers/kube.ts';
import {
  APPS,
  dryRunContext,
  edit,
  executeContext,
  listOf,
  mockObserve,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';

function checkout(extra: { paused?: boolean; name?: string } = {}) {
  const dep = deployment({
    name: extra.name ?? 'checkout',
    image: 'shop/checkout:2.4.1',
    revision: 7,
    paused: extra.paused,
  }) as Deployment;
  dep.spec!.template!.metadata!.annotations = {
    'prometheus.io/scrape': 'true',
    'kubectl.kubernetes.io/restartedAt': '2024-04-30T08:00:00Z',
  };
  const sets = [6, 7].map((revision) =>
    replicaSet({ deployment: dep as never, revision, hash: `h${revision}`, image: 'shop/checkout:2.4.1' }),
  ) as ReplicaSet[];
  return { dep, sets };
}

const service = (selector?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'checkout', namespace: 'shop' },
  spec: { ...(selector && { selector }), ports: [{ port: 80 }] },
});

const api = useRemediationApi();

describe('restart_service', () => {
  it('is destructive and supports dry runs', () => {
    expect(restartService.risk).toBe('destructive');
    expect(restartService.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
    expect(restartService.supportsDryRun).toBe(true);
  });

  it('formats restartedAt as RFC 3339 in UTC with whole seconds, as kubectl', () => {
    expect(rfc3339(new Date('2024-05-01T12:00:07.891Z'))).toBe('2024-05-01T12:00:07Z');
  });

  it('previews the restart with the revision it becomes, sending nothing', async () => {
    const { dep, sets } = checkout();
    mockObserve(dep, sets);
    const output = await callTool(
      restartService,
      { namespace: 'shop', name: 'checkout', dry_run: true },
      dryRunContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result).toMatchObject({
      status: 'preview',
      summary:
        'Restart Deployment shop/checkout (revision 7, shop/checkout:2.4.1): a rolling update replaces its 3 Pods',
      resolved_arguments: { namespace: 'shop', name: 'checkout' },
      new_revision: 8,
      changes: [
        {
          kind: 'template_annotation',
          key: 'kubectl.kubernetes.io/restartedAt',
          from: '2024-04-30T08:00:00Z',
        },
      ],
    });
    expect(result.effect).toMatchObject({
      revision: 7,
      restarted_at: '2024-04-30T08:00:00Z',
      new_revision: 8,
    });
  });

  it("merges restartedAt into the template's annotations with a strategic merge patch", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2024-05-01T12:00:07.500Z'));
    const { dep, sets } = checkout();
    dep.metadata!.annotations!['sentinel.dev/reason'] = 'an older reason';
    let body: unknown;
    const scope = mockObserve(dep, sets)
      .patch(`${APPS}/shop/deployments/checkout`, (sent) => {
        body = sent;
        return true;
      })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .reply(
        200,
        edit(dep, (d) => (d.metadata!.generation = 2)),
      );
    const output = await callTool(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster, 'ar-7'),
    );
    scope.done();
    expect(body).toEqual({
      spec: {
        template: {
          metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-05-01T12:00:07Z' } },
        },
      },
      metadata: {
        annotations: {
          // an old reason is removed, not left to describe this change
          'sentinel.dev/reason': null,
          'sentinel.dev/approval-request-id': 'ar-7',
          'kubernetes.io/change-cause': 'rollout restart (sentinel, approval request ar-7)',
        },
      },
    });
    expect(structured(output)).toMatchObject({
      status: 'applied',
      new_revision: 8,
      rollout_status: { state: 'progressing' },
    });
  });

  it('says the outcome is unknown when the API server answers 504 to the patch', async () => {
    const { dep, sets } = checkout();
    const scope = mockObserve(dep, sets)
      .patch(`${APPS}/shop/deployments/checkout`)
      .query(true)
      .reply(
        504,
        statusBody(504, 'Timeout', 'the server was unable to return a response in the time allotted'),
      );
    const error = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('may or may not have reached Deployment shop/checkout');
  });

  it('refuses a restart within the same second, as kubectl refuses an empty patch', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2024-04-30T08:00:00.300Z'));
    const { dep, sets } = checkout();
    mockObserve(dep, sets);
    const error = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('already restarted within the past second');
  });

  it('refuses a paused Deployment, sending nothing', async () => {
    const { dep, sets } = checkout({ paused: true });
    mockObserve(dep, sets);
    const error = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('refused');
    expect(error.message).toContain("can't restart paused deployment");
    expect(error.message).toContain('resume_rollout');
  });

  it('resolves a Service to the one Deployment whose Pods it selects', async () => {
    const { dep, sets } = checkout({ name: 'checkout-v2' });
    dep.spec!.template!.metadata!.labels = { app: 'checkout', track: 'stable' };
    dep.spec!.selector = { matchLabels: { app: 'checkout', track: 'stable' } };
    const other = deployment({ name: 'cart' });
    const scope = mockApi()
      .get(`${APPS}/shop/deployments/checkout`)
      .reply(404, statusBody(404, 'NotFound', 'deployments.apps "checkout" not found'))
      .get('/api/v1/namespaces/shop/services/checkout')
      .reply(200, service({ app: 'checkout' }))
      .get(`${APPS}/shop/deployments`)
      .query({ limit: 500 })
      .reply(200, listOf('DeploymentList', [dep, other]))
      .get(`${APPS}/shop/statefulsets`)
      .query(true)
      .reply(200, listOf('StatefulSetList', []))
      .get(`${APPS}/shop/daemonsets`)
      .query(true)
      .reply(200, listOf('DaemonSetList', []))
      .get(`${APPS}/shop/replicasets`)
      .query({ labelSelector: 'app=checkout,track=stable', limit: 500 })
      .reply(200, listOf('ReplicaSetList', sets));
    const result = structured(
      await callTool(
        restartService,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    scope.done();
    expect(result.resolved_arguments).toEqual({ namespace: 'shop', name: 'checkout-v2' });
    expect(result.summary).toContain(
      'Restart Deployment shop/checkout-v2, the Deployment behind Service shop/checkout',
    );
    expect(result.target).toMatchObject({ name: 'checkout-v2' });
  });

  it('lists the Deployments when a Service selects several', async () => {
    const blue = deployment({ name: 'checkout-blue' });
    const green = deployment({ name: 'checkout-green' });
    for (const d of [blue, green])
      d.spec!.template!.metadata!.labels = { app: 'checkout', color: d.metadata!.name! };
    mockApi()
      .get(`${APPS}/shop/deployments/checkout`)
      .reply(404, statusBody(404, 'NotFound', 'not found'))
      .get('/api/v1/namespaces/shop/services/checkout')
      .reply(200, service({ app: 'checkout' }))
      .get(`${APPS}/shop/deployments`)
      .query(true)
      .reply(200, listOf('DeploymentList', [green, blue]))
      .get(`${APPS}/shop/statefulsets`)
      .query(true)
      .reply(200, listOf('StatefulSetList', []))
      .get(`${APPS}/shop/daemonsets`)
      .query(true)
      .reply(200, listOf('DaemonSetList', []));
    const error = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('invalid_input');
    expect(error.field).toBe('name');
    expect(error.message).toBe(
      'Service shop/checkout (selector app=checkout) selects the Pods of 2 workloads: Deployment checkout-blue, Deployment checkout-green. Restart one of them by its name and kind; nothing was sent.',
    );
    expect(error.details).toEqual({ workloads: ['Deployment checkout-blue', 'Deployment checkout-green'] });
  });

  it('explains a Service without selector, a Service selecting nothing, and a name that is neither', async () => {
    const notFound = () =>
      mockApi()
        .get(`${APPS}/shop/deployments/checkout`)
        .reply(404, statusBody(404, 'NotFound', 'x'));
    notFound().get('/api/v1/namespaces/shop/services/checkout').reply(200, service());
    expect(
      (
        await callToolError(
          restartService,
          { namespace: 'shop', name: 'checkout' },
          dryRunContext(api.cluster),
        )
      ).message,
    ).toContain('has no selector');
    notFound()
      .get('/api/v1/namespaces/shop/services/checkout')
      .reply(200, service({ app: 'checkout' }))
      .get(`${APPS}/shop/deployments`)
      .query(true)
      .reply(200, listOf('DeploymentList', [deployment({ name: 'cart' })]))
      .get(`${APPS}/shop/statefulsets`)
      .query(true)
      .reply(200, listOf('StatefulSetList', []))
      .get(`${APPS}/shop/daemonsets`)
      .query(true)
      .reply(200, listOf('DaemonSetList', []));
    const none = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      dryRunContext(api.cluster),
    );
    expect(none.code).toBe('not_found');
    expect(none.message).toContain('selects the Pods of no Deployment, StatefulSet or DaemonSet');
    notFound()
      .get('/api/v1/namespaces/shop/services/checkout')
      .reply(404, statusBody(404, 'NotFound', 'x'));
    const neither = await callToolError(
      restartService,
      { namespace: 'shop', name: 'checkout' },
      dryRunContext(api.cluster),
    );
    expect(neither.code).toBe('not_found');
    expect(neither.message).toBe(
      "Neither a Deployment nor a Service named 'checkout' exists in namespace 'shop'; list_deployments shows the Deployments that exist.",
    );
  });

  it('plans from the observation alone (pure)', () => {
    const { dep, sets } = checkout();
    const plan = planRestart({ deployment: dep, replicaSets: sets });
    expect(plan.newRevision).toBe(8);
    expect(plan.apply).toBeTypeOf('function');
  });
});
