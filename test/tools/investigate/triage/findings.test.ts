/**
 * Triage's likely cause for a crash loop the kubelet causes: a failing liveness probe, or a startup
 * probe that never passes, next to the restarts — named as a probe kill, not as a crash.
 */
import { describe, expect, it } from 'vitest';
import { triage } from '../../../../tools/investigate/triage/findings.ts';
import type { ClusterEvent } from '../../../../tools/kube/index.ts';
import { NOW, pod } from '../../../helpers/fixtures.ts';

const killed = pod({
  name: 'api-1',
  containers: [
    {
      name: 'api',
      waiting: { reason: 'CrashLoopBackOff' },
      restarts: 5,
      last: { reason: 'Error', exitCode: 137 },
    },
  ],
});

function unhealthy(message: string): ClusterEvent {
  return {
    type: 'Warning',
    reason: 'Unhealthy',
    object: { kind: 'Pod', name: 'api-1', namespace: 'shop' },
    message,
    count: 9,
    firstSeen: NOW - 600_000,
    lastSeen: NOW,
    source: 'kubelet',
    api: 'both',
  };
}

const causeWith = (events: ClusterEvent[]) =>
  triage({ deployments: [], replicaSets: [], pods: [killed], events }).workloads[0]!.likelyCause;

describe('triage: probe kills', () => {
  it('names a liveness kill', () => {
    expect(causeWith([unhealthy('Liveness probe failed: HTTP probe failed with statuscode: 500')])).toMatch(
      /^the kubelet kills the containers because their liveness probe fails/,
    );
  });

  it('names a startup probe that never passes', () => {
    expect(causeWith([unhealthy('Startup probe failed: connect: connection refused')])).toMatch(
      /^the containers never pass their startup probe/,
    );
  });

  it('a crash loop with only readiness failures stays a crash', () => {
    expect(causeWith([unhealthy('Readiness probe failed: HTTP probe failed with statuscode: 503')])).toMatch(
      /^containers crash after starting/,
    );
  });
});
