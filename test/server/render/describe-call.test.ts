import { describe, expect, it } from 'vitest';
import { describeToolCall, formatArguments } from '../../../server/render/index.ts';

describe('describeToolCall', () => {
  it.each([
    [
      'rollback_deployment',
      { namespace: 'shop', name: 'checkout' },
      'Roll back Deployment shop/checkout to its previous revision',
    ],
    [
      'rollback_deployment',
      { namespace: 'shop', name: 'checkout', to_revision: 6 },
      'Roll back Deployment shop/checkout to revision 6',
    ],
    [
      'restart_service',
      { namespace: 'shop', name: 'checkout' },
      'Restart the Pods of shop/checkout (rolling restart, as `kubectl rollout restart`)',
    ],
    [
      'scale_deployment',
      { namespace: 'shop', name: 'checkout', replicas: 1 },
      'Scale Deployment shop/checkout to 1 replica',
    ],
    [
      'scale_deployment',
      { namespace: 'shop', name: 'checkout', replicas: 0 },
      'Scale Deployment shop/checkout to 0 replicas',
    ],
    [
      'pause_rollout',
      { namespace: 'shop', name: 'checkout' },
      'Pause the rollout of Deployment shop/checkout',
    ],
    [
      'resume_rollout',
      { namespace: 'shop', name: 'checkout', dry_run: true },
      'Preview only (dry run): Resume the rollout of Deployment shop/checkout',
    ],
    [
      'list_pods',
      { namespace: 'shop', label_selector: 'app=web' },
      'Call list_pods with label_selector=app=web namespace=shop',
    ],
    ['get_cluster_version', {}, 'Call get_cluster_version'],
    [
      'rollback_deployment',
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 4 },
      'Roll back StatefulSet shop/postgres to revision 4',
    ],
    [
      'restart_service',
      { namespace: 'ops', name: 'node-agent', kind: 'DaemonSet' },
      'Restart the Pods of DaemonSet ops/node-agent (rolling restart, as `kubectl rollout restart`)',
    ],
    [
      'scale_deployment',
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', replicas: 2 },
      'Scale StatefulSet shop/postgres to 2 replicas',
    ],
    ['delete_pod', { namespace: 'shop', name: 'postgres-0' }, 'Delete Pod shop/postgres-0'],
    [
      'delete_pod',
      { namespace: 'shop', name: 'postgres-0', grace_period_seconds: 0 },
      'Delete Pod shop/postgres-0 at once (force: grace period 0)',
    ],
  ])('%s %j', (tool, args, sentence) => {
    expect(describeToolCall(tool, args)).toBe(sentence);
  });

  it('redacts argument values and keeps one line', () => {
    expect(describeToolCall('set_thing', { password: 'hunter2', note: 'a\nb' })).toBe(
      'Call set_thing with note=a b password=[REDACTED]',
    );
    expect(formatArguments({ reason: 'why', idempotency_key: 'k', dry_run: false, replicas: 2 })).toBe(
      'replicas=2',
    );
  });
});
