/** One test group per failure class of the playbook (issue 14): its evidence rule and its decision. */
import { describe, expect, it } from 'vitest';
import {
  decide,
  namedHosts,
  dependencyNames,
  type SuspectEvidence,
} from '../../../agent/investigator/playbook.ts';

import type { RevisionView } from '../../../agent/investigator/evidence.ts';
import {
  crashing,
  event,
  healthy as health,
  NOW,
  pod,
  rev,
  sourced,
  suspect as suspectWith,
} from '../../helpers/playbook.ts';

/** A Warning event about `name` first seen `minutes` ago (4 times). */
const warning = (name: string, reason: string, message: string, minutes: number, kind = 'Pod') =>
  event(name, reason, message, minutes, { kind });

/** The evidence about Deployment `name` whose one container `app` has `limits`. */
const suspect = (name: string, s: Parameters<typeof suspectWith>[1], limits: Record<string, string> = {}) =>
  suspectWith(name, s, [{ name: 'app', image: 'app:1', limits }]);

/**
 * Deployment `app` (one container, memory limit 128Mi) OOM-killed (exit 137) on revision 2, which
 * lowered limits.memory 512Mi → 128Mi; revision 1 was healthy. `extra` adds evidence (metrics).
 */
const oomAfterLimitLowered = (extra: Pick<Partial<SuspectEvidence>, 'metrics'> = {}) =>
  suspect(
    'app',
    {
      pods: [pod('app-2-a', 2, 20, crashing(137, 'OOMKilled'))],
      ...extra,
      history: sourced(
        [
          rev(2, 20, 0, {
            current: true,
            changes: [
              {
                kind: 'resources',
                container: 'app',
                key: 'limits.memory',
                from: '512Mi',
                to: '128Mi',
                text: '',
              },
            ],
          }),
          rev(1, 2 * 1440, 2, { health }),
        ],
        'get_rollout_history',
      ),
    },
    { memory: '128Mi' },
  );

describe('rollout class: the newest revision demonstrably healthy', () => {
  it('skips a previous revision that crash-looped (its Pods are gone, its events remain) and targets the healthy one', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-3-a', 3, 14, crashing()), pod('app-3-b', 3, 14, crashing())],
        history: sourced(
          [
            rev(3, 14, 0, { current: true }),
            rev(2, 40, 0, {
              health: { state: 'failed', failures: ['Pod app-2-x BackOff ×9'], basis: 'its Pods failed' },
            }),
            rev(1, 3 * 1440, 0, { health }),
          ],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision.action).toBe('rollback');
    expect(decision.remediation?.arguments.to_revision).toBe(1);
    expect(decision.explanation).toContain(
      'Revision 2 is skipped: revision 2 failed too (Pod app-2-x BackOff ×9)',
    );
    expect(decision.facts.skipped_revisions).toBe('2');
  });

  it('refuses when no earlier revision has a healthy record', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-3-a', 3, 14, crashing())],
        history: sourced(
          [
            rev(3, 14, 0, { current: true }),
            rev(2, 40, 0, { health: { state: 'failed', failures: ['Pod app-2-x BackOff'], basis: '' } }),
          ],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision).toMatchObject({ action: 'refused', refusal: 'no-healthy-revision' });
  });

  it('refuses, naming each failure, when the failing Pods span several recent revisions that all failed', () => {
    const failed = (pod: string) => ({
      state: 'failed' as const,
      failures: [`Pod ${pod} BackOff ×9`],
      basis: '',
    });
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-3-a', 3, 10, crashing()), pod('app-2-a', 2, 25, crashing())],
        history: sourced(
          [
            rev(3, 10, 0, { current: true, health: failed('app-3-a') }),
            rev(2, 25, 0, { health: failed('app-2-a') }),
            rev(1, 45, 0, { health: failed('app-1-x') }),
          ],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision).toMatchObject({ action: 'refused', refusal: 'no-healthy-revision' });
    expect(decision.explanation).toContain('revision 1 failed (Pod app-1-x BackOff ×9); revision 2 failed');
    expect(decision.facts.skipped_revisions).toBe('1, 2');
  });

  it('does not refuse for lack of a healthy revision when an earlier revision has no failed record', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-3-a', 3, 10, crashing()), pod('app-2-a', 2, 25, crashing())],
        history: sourced(
          [rev(3, 10, 0, { current: true }), rev(2, 25, 0), rev(1, 3 * 1440, 0, { health })],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision.refusal).not.toBe('no-healthy-revision');
  });
});

describe('scheduling class: a change that makes Pods unschedulable', () => {
  const pending = [
    pod('app-2-a', 2, 10, { state: 'waiting', reason: 'ContainerCreating', ready: false }, 'Pending'),
  ];
  const history = (changes: RevisionView['changes']) =>
    sourced(
      [rev(2, 10, 0, { current: true, changes }), rev(1, 3 * 1440, 2, { health })],
      'get_rollout_history',
    );
  const events = sourced(
    [warning('app-2-a', 'FailedScheduling', '0/3 nodes are available: 3 Insufficient cpu.', 9)],
    'list_events',
  );

  it('blames a tenfold CPU request on the change and rolls back, naming the field old → new', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: pending,
        events,
        history: history([
          { kind: 'resources', container: 'app', key: 'requests.cpu', from: '100m', to: '1', text: '' },
        ]),
      }),
    });
    expect(decision.action).toBe('rollback');
    expect(decision.remediation?.arguments.to_revision).toBe(1);
    expect(decision.diagnosis).toContain('changed requests.cpu of container app 100m → 1');
    expect(decision.facts).toMatchObject({
      failure: 'change_unschedulable',
      changed_field: 'requests.cpu',
      changed_from: '100m',
      changed_to: '1',
    });
  });

  it('still refuses for capacity when the template did not change what scheduling depends on', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: pending,
        events,
        history: history([{ kind: 'image', container: 'app', from: 'app:1', to: 'app:2', text: '' }]),
      }),
    });
    expect(decision).toMatchObject({ action: 'refused', refusal: 'unschedulable' });
  });
});

describe('dependency class: a victim of a failing dependency', () => {
  const victimLogs = [
    {
      value: {
        pod: 'checkout-1-a',
        container: 'app',
        previous: true,
        log: 'starting\nError: connect ECONNREFUSED postgres:5432\n',
      },
      source: 'get_pod_logs pod=checkout-1-a previous=true',
    },
  ];
  const victim = suspect('checkout', {
    pods: [pod('checkout-1-a', 1, 3 * 1440, crashing())],
    logs: victimLogs,
    events: sourced(
      [warning('checkout-1-a', 'BackOff', 'Back-off restarting failed container', 8)],
      'list_events',
    ),
    history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
  });
  const postgres = suspect(
    'postgres',
    {
      pods: [pod('postgres-2-a', 2, 9, crashing(137, 'OOMKilled'))],
      history: sourced(
        [
          rev(2, 9, 0, {
            current: true,
            changes: [
              {
                kind: 'resources',
                container: 'app',
                key: 'limits.memory',
                from: '1Gi',
                to: '64Mi',
                text: '',
              },
            ],
          }),
          rev(1, 5 * 1440, 0, { health }),
        ],
        'get_rollout_history',
      ),
    },
    { memory: '64Mi' },
  );

  it('reads hosts from log lines', () => {
    expect(namedHosts('connect ECONNREFUSED postgres:5432')).toEqual(['postgres']);
    expect(namedHosts('GET http://payments.shop.svc.cluster.local/api failed; 10.0.0.1:80')).toEqual([
      'payments',
    ]);
    expect(dependencyNames(victim, ['checkout', 'postgres', 'redis'])).toEqual(['postgres']);
  });

  it('names the dependency as culprit and remediates it, the victim affected and untouched', () => {
    const decision = decide({ namespace: 'shop', now: NOW, suspect: victim, dependencies: [postgres] });
    expect(decision.culprit).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'postgres' });
    expect(decision.action).toBe('rollback');
    expect(decision.remediation?.arguments).toMatchObject({ name: 'postgres', to_revision: 1 });
    expect(decision.facts).toMatchObject({
      affected: 'Deployment shop/checkout',
      memory_limit: '64Mi',
      failure: 'oom_killed',
    });
    expect(decision.diagnosis).toContain('connect ECONNREFUSED postgres:5432');
    expect(decision.evidence.some((e) => e.line.includes('ECONNREFUSED postgres:5432'))).toBe(true);
  });

  it('keeps refusing when the dependency is healthy', () => {
    const fine = suspect('postgres', { pods: [pod('postgres-1-a', 1, 5 * 1440)] });
    fine.deployment!.value.replicas = { desired: 1, ready: 1, available: 1, updated: 1 };
    const decision = decide({ namespace: 'shop', now: NOW, suspect: victim, dependencies: [fine] });
    expect(decision).toMatchObject({ action: 'refused', refusal: 'crash-no-recent-change' });
    expect(decision.culprit?.name).toBe('checkout');
  });
});

describe('exact diagnoses', () => {
  it('an OOM kill names the container memory limit and the change that lowered it', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: oomAfterLimitLowered(),
    });
    expect(decision.cause).toBe('oom_killed');
    expect(decision.diagnosis).toContain(
      'OOMKilled (exit 137) at its memory limit 128Mi (revision 2 changed limits.memory 512Mi → 128Mi)',
    );
    expect(decision.facts).toMatchObject({
      memory_limit: '128Mi',
      exit_code: 137,
      changed_field: 'limits.memory',
    });
  });

  describe('an OOM kill with the last usage from the metrics API (get_pod_metrics)', () => {
    const lowered = (metrics: SuspectEvidence['metrics']) =>
      decide({ namespace: 'shop', now: NOW, suspect: oomAfterLimitLowered({ metrics }) });
    const sample = (available: boolean, memory_mib: number | null) =>
      sourced(
        {
          available,
          pods: available
            ? [
                {
                  name: 'app-2-a',
                  timestamp: null,
                  containers: [{ name: 'app', memory_mib, memory_limit: '128Mi' }],
                },
              ]
            : [],
        },
        'get_pod_metrics pod=app-2-a',
      );

    it('carries memory_usage beside memory_limit and says "last usage 127Mi of its 128Mi limit"', () => {
      const decision = lowered(sample(true, 127));
      expect(decision.cause).toBe('oom_killed');
      expect(decision.diagnosis).toContain(
        'OOMKilled (exit 137), last usage 127Mi of its 128Mi limit (revision 2 changed limits.memory 512Mi → 128Mi)',
      );
      expect(decision.facts).toMatchObject({ memory_usage: '127Mi', memory_limit: '128Mi', exit_code: 137 });
      expect(decision.evidence).toContainEqual({
        source: 'get_pod_metrics pod=app-2-a',
        line: 'last usage 127Mi of its 128Mi limit',
      });
      expect(decision.action).toBe('rollback');
    });

    it('without the metrics API (available: false), or without a sample, there is no usage: the limit alone', () => {
      for (const metrics of [sample(false, null), sample(true, null), undefined]) {
        const decision = lowered(metrics);
        expect(decision.cause).toBe('oom_killed');
        expect(decision.facts).not.toHaveProperty('memory_usage');
        expect(decision.facts).toMatchObject({ memory_limit: '128Mi' });
        expect(decision.diagnosis).toContain('OOMKilled (exit 137) at its memory limit 128Mi');
        expect(decision.diagnosis).not.toContain('last usage');
      }
    });
  });

  it('a liveness kill (exit 137 after failed liveness probes) is not a generic crash loop', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-1-a', 1, 3 * 1440, crashing(137, 'Error'))],
        events: sourced(
          [
            warning(
              'app-1-a',
              'Unhealthy',
              'Liveness probe failed: HTTP probe failed with statuscode: 500',
              30,
            ),
          ],
          'list_events',
        ),
        history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
      }),
    });
    expect(decision.cause).toBe('liveness_kill');
    expect(decision.facts).toMatchObject({ failure: 'liveness_probe', exit_code: 137 });
    expect(decision.diagnosis).toContain(
      'liveness probe fails (Liveness probe failed: HTTP probe failed with statuscode: 500 ×4)',
    );
  });

  it('an image pull names the pull secret the new revision removed', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-2-a', 2, 10, { state: 'waiting', reason: 'ImagePullBackOff', ready: false })],
        events: sourced(
          [warning('app-2-a', 'Failed', 'Failed to pull image "r.example.com/app:1": 401 Unauthorized', 9)],
          'list_events',
        ),
        history: sourced(
          [
            rev(2, 10, 0, {
              current: true,
              changes: [
                {
                  kind: 'pod_spec',
                  key: 'imagePullSecrets',
                  from: '[{"name":"regcred"}]',
                  to: null,
                  text: '',
                },
              ],
            }),
            rev(1, 3 * 1440, 2, { health }),
          ],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision.action).toBe('rollback');
    expect(decision.facts).toMatchObject({ failure: 'missing_pull_secret', pull_secret: 'regcred' });
    expect(decision.diagnosis).toContain('removed image pull secret regcred');
  });
});

describe('rollout class: StatefulSets and DaemonSets (issue 15)', () => {
  const unknown = {
    state: 'unknown' as const,
    failures: [],
    basis: 'not assessed for StatefulSet revisions',
  };
  const triaged = (kind: string, name: string, failing: number[]) => ({
    kind,
    name,
    severity: 'critical',
    summary: 's',
    likely_cause: 'c',
    findings: [],
    rollout: { current_revision: 3, failing_revisions: failing, previous_revision: null },
  });

  it('rolls a StatefulSet back with its kind, to the newest revision that served (ControllerRevision health not assessed)', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: {
        kind: 'StatefulSet',
        name: 'postgres',
        triage: triaged('StatefulSet', 'postgres', [3]),
        // Pods of a StatefulSet carry no ReplicaSet revision: triage says which revision fails.
        pods: sourced(
          [
            { ...pod('postgres-2', 3, 11, crashing()), revision: null },
            { ...pod('postgres-0', 2, 3000), revision: null },
          ],
          'list_pods namespace=shop',
        ),
        history: sourced(
          [
            rev(3, 12, 0, { current: true, health: unknown }),
            rev(2, 3 * 1440, 0, { health: unknown }),
            rev(1, 6 * 1440, 0, { health: unknown }),
          ],
          'get_rollout_history namespace=shop name=postgres kind=StatefulSet',
        ),
        events: sourced([], 'list_events'),
        logs: [],
      },
    });
    expect(decision).toMatchObject({
      action: 'rollback',
      culprit: { kind: 'StatefulSet', namespace: 'shop', name: 'postgres' },
      cause: 'crash_loop',
      remediation: {
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 2 },
      },
    });
    expect(decision.diagnosis).toMatch(/^StatefulSet shop\/postgres \(revision 3 \(app:3\)\) crash-loops/);
  });

  it('a Deployment revision of unknown health is still not a rollback target, and the call names no kind', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-3-a', 3, 11, crashing())],
        history: sourced(
          [
            rev(3, 12, 0, { current: true }),
            rev(2, 3 * 1440, 0, { health: unknown }),
            rev(1, 6 * 1440, 1, { health }),
          ],
          'get_rollout_history',
        ),
      }),
    });
    expect(decision.remediation?.arguments).toEqual({ namespace: 'shop', name: 'app', to_revision: 1 });
  });
});
