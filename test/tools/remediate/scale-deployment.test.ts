import { describe, expect, it, vi } from 'vitest';
import { SentinelError } from '../../../tools/errors.ts';
import { parseMaxReplicas, scaleDeployment } from '../../../tools/remediate/scale-deployment.ts';
import type { Deployment } from '../../../tools/kube/types.ts';
import { deployment } from '../../helpers/fixtures.ts';
import { mockApi, statusBody } from '../../helpers/kube.ts';
import {
  APPS,
  dryRunContext,
  edit,
  executeContext,
  listOf,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';

const PATH = `${APPS}/shop/deployments/checkout`;
const HPAS = '/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers';

const checkout = () => deployment({ name: 'checkout', replicas: 3, generation: 4 }) as Deployment;
const hpa = (target: string, min: number, max: number) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: target, namespace: 'shop' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    minReplicas: min,
    maxReplicas: max,
  },
});

function mockRead(dep: Deployment, autoscalers: unknown[] = []) {
  return mockApi()
    .get(PATH)
    .reply(200, dep)
    .get(HPAS)
    .query({ limit: 500 })
    .reply(200, listOf('HorizontalPodAutoscalerList', autoscalers, 'autoscaling/v2'));
}

const api = useRemediationApi();

describe('scale_deployment', () => {
  it('is destructive and accepts 0 to the configured maximum (default 50)', () => {
    expect(scaleDeployment.risk).toBe('destructive');
    expect(scaleDeployment.annotations.destructiveHint).toBe(true);
    const parse = (replicas: unknown) =>
      scaleDeployment.input.safeParse({ namespace: 'shop', name: 'checkout', replicas }).success;
    expect([0, 1, 50].map(parse)).toEqual([true, true, true]);
    expect([-1, 51, 2.5, '3'].map(parse)).toEqual([false, false, false, false]);
    expect(scaleDeployment.input.safeParse({ namespace: 'shop', name: 'checkout' }).success).toBe(false);
  });

  it('parses SENTINEL_MAX_REPLICAS strictly: plain decimal digits from 0 to 10000', () => {
    expect(parseMaxReplicas(undefined)).toBe(50);
    expect(parseMaxReplicas('')).toBe(50);
    expect(parseMaxReplicas('200')).toBe(200);
    expect(parseMaxReplicas('0')).toBe(0);
    expect(parseMaxReplicas('10000')).toBe(10000);
    const bad = [
      '1e3',
      '0x10',
      '+5',
      '-3',
      '5.0',
      '1.5',
      ' 5',
      '5 ',
      ' ',
      '007',
      'ten',
      '10001',
      '9'.repeat(30),
    ];
    for (const value of bad) {
      const error = (() => {
        try {
          parseMaxReplicas(value);
        } catch (e) {
          return e as SentinelError;
        }
        return undefined;
      })();
      expect(error, value).toBeInstanceOf(SentinelError);
      expect(error!.code).toBe('invalid_input');
      expect(error!.field).toBe('SENTINEL_MAX_REPLICAS');
      expect(error!.message).toContain(`SENTINEL_MAX_REPLICAS=${JSON.stringify(value)} is invalid`);
      expect(error!.message).toContain('from 0 to 10000 in plain decimal digits');
    }
  });

  describe('with SENTINEL_MAX_REPLICAS set when the tools load', () => {
    /** The scale tool as a server started with `SENTINEL_MAX_REPLICAS=value` loads it. */
    async function loadWith(value: string): Promise<typeof scaleDeployment> {
      vi.stubEnv('SENTINEL_MAX_REPLICAS', value);
      vi.resetModules();
      try {
        return (await import('../../../tools/remediate/scale-deployment.ts')).scaleDeployment;
      } finally {
        vi.unstubAllEnvs();
        vi.resetModules();
      }
    }

    it('a valid value is the maximum the input schema enforces and states', async () => {
      const tool = await loadWith('7');
      const parse = (replicas: number) =>
        tool.input.safeParse({ namespace: 'shop', name: 'checkout', replicas });
      expect(parse(7).success).toBe(true);
      expect(parse(8).error?.issues[0]?.message).toBe(
        'must be at most 7 (the configured maximum, SENTINEL_MAX_REPLICAS)',
      );
      expect(tool.description).toContain('replicas: 0 to 7.');
    });

    it('1e3 is not read as 1000: every call fails naming the variable and the rule, sending nothing', async () => {
      const tool = await loadWith('1e3');
      const parsed = tool.input.safeParse({ namespace: 'shop', name: 'checkout', replicas: 3 });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toMatch(
        /^SENTINEL_MAX_REPLICAS="1e3" is invalid: it must be a whole number from 0 to 10000 in plain decimal digits/,
      );
      expect(tool.description).toContain('Unavailable until the server');
      // The handler refuses too, before any Kubernetes request (nock has no interceptor).
      const error = await tool
        .handler(
          { namespace: 'shop', name: 'checkout', replicas: 3, dry_run: true },
          dryRunContext(api.cluster),
        )
        .then(
          () => undefined,
          (e: unknown) => e as SentinelError,
        );
      expect(error).toMatchObject({ code: 'invalid_input', field: 'SENTINEL_MAX_REPLICAS' });
      expect(api.unexpected).toEqual([]);
    });
  });

  it('previews from/to and warns on scaling to 0 and on a HorizontalPodAutoscaler', async () => {
    const scope = mockRead(checkout(), [hpa('checkout', 2, 10), hpa('cart', 1, 5)]);
    const output = await callTool(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 0, dry_run: true },
      dryRunContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
    const result = structured(output);
    expect(result).toMatchObject({
      status: 'preview',
      summary: 'Scale Deployment shop/checkout from 3 to 0 replicas',
      resolved_arguments: { namespace: 'shop', name: 'checkout', replicas: 0 },
      changes: [{ kind: 'replicas', from: 3, to: 0, text: 'spec.replicas: 3 → 0' }],
      effect: {
        tool: 'scale_deployment',
        replicas_from: 3,
        replicas_to: 0,
        autoscalers: ['checkout (min 2, max 10)'],
        target: { kind: 'Deployment', namespace: 'shop', name: 'checkout' },
      },
      target: { generation: 4 },
    });
    // The count binds the approval (replicas_from), not metadata.generation, which an autoscaler moves.
    expect(result.effect.target).not.toHaveProperty('generation');
    expect(result.warnings.map((w) => w.kind)).toEqual(['scale_to_zero', 'hpa']);
    expect(result.warnings[1]!.message).toContain('never scales up from zero');
    expect(result.new_revision).toBeUndefined();
  });

  it('warns that an autoscaler moves a count outside its range back', async () => {
    mockRead(checkout(), [hpa('checkout', 2, 10)]);
    const result = structured(
      await callTool(
        scaleDeployment,
        { namespace: 'shop', name: 'checkout', replicas: 20, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.warnings).toEqual([
      expect.objectContaining({ kind: 'hpa', message: expect.stringContaining('20 is outside its range') }),
    ]);
  });

  it('stamps the attribution, then merge-patches the scale subresource, and reports the status', async () => {
    const dep = checkout();
    const stamps: unknown[] = [];
    const scope = mockRead(dep)
      .patch(PATH, (body) => {
        stamps.push(body);
        return true;
      })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .reply(200, dep)
      .patch(`${PATH}/scale`, { spec: { replicas: 5 } })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/merge-patch+json')
      .reply(200, {
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name: 'checkout' },
        spec: { replicas: 5 },
      })
      .get(PATH)
      .reply(
        200,
        edit(dep, (d) => {
          d.spec!.replicas = 5;
          d.metadata!.generation = 5;
        }),
      );
    const output = await callTool(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 5, reason: 'Black Friday traffic' },
      executeContext(api.cluster, 'ar-9'),
    );
    scope.done();
    // No change-cause: scaling makes no revision, and the current one keeps its own.
    expect(stamps).toEqual([
      {
        metadata: {
          annotations: {
            'sentinel.dev/reason': 'Black Friday traffic',
            'sentinel.dev/approval-request-id': 'ar-9',
          },
        },
      },
    ]);
    expect(structured(output)).toMatchObject({
      status: 'applied',
      rollout_status: { state: 'progressing' },
      recorded: { field_manager: 'sentinel' },
    });
  });

  it('sends only the scale when there is nothing to record', async () => {
    const scope = mockRead(checkout())
      .patch(`${PATH}/scale`, { spec: { replicas: 2 } })
      .query(true)
      .reply(200, { kind: 'Scale', spec: { replicas: 2 } })
      .get(PATH)
      .reply(200, checkout());
    await callTool(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 2 },
      executeContext(api.cluster),
    );
    scope.done();
    expect(api.unexpected).toEqual([]);
  });

  it('puts the annotations back when the scale is refused', async () => {
    const dep = checkout();
    dep.metadata!.annotations!['sentinel.dev/reason'] = 'earlier';
    const bodies: unknown[] = [];
    const record = (body: unknown) => {
      bodies.push(body);
      return true;
    };
    const scope = mockRead(dep)
      .patch(PATH, record)
      .query(true)
      .reply(200, dep)
      .patch(`${PATH}/scale`)
      .query(true)
      .reply(403, statusBody(403, 'Forbidden', 'cannot patch resource "deployments/scale"'))
      .patch(PATH, record)
      .query(true)
      .reply(200, dep);
    const error = await callToolError(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 1, reason: 'test' },
      executeContext(api.cluster, 'ar-1'),
    );
    scope.done();
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('deployments/scale');
    expect(error.message).toContain("was not scaled; Sentinel's annotations were put back");
    expect(bodies[1]).toEqual({
      metadata: {
        annotations: { 'sentinel.dev/reason': 'earlier', 'sentinel.dev/approval-request-id': null },
      },
    });
  });

  it('leaves the annotations when the scale may have happened (no answer), and says to check', async () => {
    const dep = checkout();
    const scope = mockRead(dep)
      .patch(PATH)
      .query(true)
      .reply(200, dep)
      .patch(`${PATH}/scale`)
      .query(true)
      .reply(503, statusBody(503, 'ServiceUnavailable', 'etcd leader changed'));
    const error = await callToolError(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 1, reason: 'test' },
      executeContext(api.cluster, 'ar-1'),
    );
    scope.done();
    // the write is not retried and the annotations are not put back
    expect(api.unexpected).toEqual([]);
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain(
      'The change may or may not have reached Deployment shop/checkout: check it with get_deployment and get_rollout_status before calling this again.',
    );
  });

  it('is a no-op, sending nothing, when the count is already right', async () => {
    mockRead(checkout());
    const output = await callTool(
      scaleDeployment,
      { namespace: 'shop', name: 'checkout', replicas: 3 },
      executeContext(api.cluster, 'ar-2'),
    );
    expect(api.unexpected).toEqual([]);
    expect(structured(output)).toMatchObject({
      status: 'no_op',
      summary: 'Deployment shop/checkout already has 3 replicas',
    });
  });

  it('warns when Helm or Flux manage the Deployment', async () => {
    const dep = checkout();
    dep.metadata!.labels = {
      ...dep.metadata!.labels,
      'app.kubernetes.io/managed-by': 'Helm',
      'kustomize.toolkit.fluxcd.io/name': 'apps',
      'kustomize.toolkit.fluxcd.io/namespace': 'flux-system',
    };
    dep.metadata!.annotations!['meta.helm.sh/release-name'] = 'checkout';
    mockRead(dep);
    const result = structured(
      await callTool(
        scaleDeployment,
        { namespace: 'shop', name: 'checkout', replicas: 4, dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(result.warnings.map((w) => w.kind)).toEqual(['flux', 'helm']);
    expect(result.warnings[0]!.message).toContain("Kustomization 'flux-system/apps'");
    expect(result.warnings[1]!.message).toContain("release 'checkout'");
  });
});
