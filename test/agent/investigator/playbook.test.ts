import { describe, expect, it } from 'vitest';
import type {
  DeploymentView,
  EventView,
  PodView,
  RevisionView,
  Triage,
} from '../../../agent/investigator/evidence.ts';
import {
  chooseSuspect,
  chooseSuspectWorkload,
  crashedContainers,
  decide,
  podCause,
  telltaleLogLines,
  type PlaybookInput,
  type SuspectEvidence,
} from '../../../agent/investigator/playbook.ts';

const NOW = Date.parse('2025-01-31T02:24:00Z');
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

type ContainerView = PodView['containers'][number];

function container(overrides: Partial<ContainerView> = {}): ContainerView {
  return {
    name: 'checkout',
    type: 'app',
    image: 'registry.example.com/shop/checkout:2.4.0',
    state: 'running',
    reason: null,
    ready: true,
    restarts: 0,
    last_termination: null,
    problem: null,
    ...overrides,
  };
}

function pod(
  name: string,
  revision: number,
  createdMinutesAgo: number,
  c: Partial<ContainerView> = {},
): PodView {
  const ctr = container(c);
  return {
    name,
    phase: c.state === 'waiting' && c.reason === 'ContainerCreating' ? 'Pending' : 'Running',
    status: ctr.reason ?? 'Running',
    ready_containers: ctr.ready ? 1 : 0,
    total_containers: 1,
    restarts: ctr.restarts,
    created: ago(createdMinutesAgo),
    revision,
    containers: [ctr],
  };
}

const crashLoop: Partial<ContainerView> = {
  image: 'registry.example.com/shop/checkout:2.4.1',
  state: 'waiting',
  reason: 'CrashLoopBackOff',
  ready: false,
  restarts: 7,
  last_termination: { reason: 'Error', exit_code: 1, finished_at: ago(1) },
  problem: 'CrashLoopBackOff, last terminated Error (exit 1)',
};

function revision(
  n: number,
  createdMinutesAgo: number,
  ready: number,
  current = false,
  image = `checkout:2.4.${n - 2}`,
): RevisionView {
  return {
    revision: n,
    current,
    replica_set: `checkout-${n}`,
    images: [`registry.example.com/shop/${image}`],
    change_cause: `deploy ${image}`,
    created: ago(createdMinutesAgo),
    replicas: ready,
    ready,
    changes: [],
  };
}

function deployment(overrides: Partial<DeploymentView> = {}): DeploymentView {
  return {
    namespace: 'shop',
    name: 'checkout',
    revision: 3,
    paused: false,
    replicas: { desired: 3, ready: 2, available: 2, updated: 2 },
    conditions: [],
    containers: [{ name: 'checkout', image: 'registry.example.com/shop/checkout:2.4.1', limits: {} }],
    ...overrides,
  };
}

function warning(object: string, reason: string, message: string, firstSeenMinutesAgo: number): EventView {
  const [kind, name] = object.split('/') as [string, string];
  return {
    type: 'Warning',
    reason,
    object: { kind, name },
    count: 3,
    first_seen: ago(firstSeenMinutesAgo),
    last_seen: ago(0),
    message,
  };
}

const TRIAGE: Triage = {
  namespace: 'shop',
  counts: { deployments: 1, pods: 4, warning_events: 2 },
  workloads: [
    {
      kind: 'Deployment',
      name: 'checkout',
      severity: 'critical',
      summary: 'crash loop, unavailable',
      likely_cause: 'containers crash after starting (CrashLoopBackOff)',
      findings: [
        {
          kind: 'crash_loop',
          evidence: 'Pod checkout-new-1 container checkout: CrashLoopBackOff, 7 restarts',
          pod: 'checkout-new-1',
        },
      ],
      rollout: {
        current_revision: 3,
        failing_revisions: [3],
        previous_revision: { revision: 2, images: ['checkout:2.4.0'], ready_replicas: 2 },
      },
    },
  ],
};

function input(
  suspect: Omit<Partial<SuspectEvidence>, 'pods'> & { pods: PodView[] },
  triage: Triage = TRIAGE,
): PlaybookInput {
  return {
    namespace: 'shop',
    now: NOW,
    triage: { value: triage, source: 'triage_namespace namespace=shop' },
    suspect: {
      name: 'checkout',
      triage: triage.workloads[0],
      deployment: { value: deployment(), source: 'get_deployment namespace=shop name=checkout' },
      history: {
        value: [
          revision(3, 14, 0, true, 'checkout:2.4.1'),
          revision(2, 2 * 24 * 60, 2, false, 'checkout:2.4.0'),
          revision(1, 3 * 24 * 60, 0, false, 'checkout:2.3.9'),
        ],
        source: 'get_rollout_history namespace=shop name=checkout',
      },
      events: { value: [], source: 'list_events namespace=shop warnings_only=true' },
      logs: [],
      ...suspect,
      pods: { value: suspect.pods, source: 'list_pods namespace=shop deployment=checkout' },
    },
  };
}

const badRollout = () => [
  pod('checkout-new-1', 3, 14, crashLoop),
  pod('checkout-new-2', 3, 13, crashLoop),
  pod('checkout-old-1', 2, 2 * 24 * 60),
  pod('checkout-old-2', 2, 2 * 24 * 60),
];

describe('decide', () => {
  it('rolls back to the revision before a freshly rolled-out crashing one, quoting the evidence', () => {
    const decision = decide(
      input({
        pods: badRollout(),
        events: {
          value: [
            warning('Pod/checkout-new-1', 'BackOff', 'Back-off restarting failed container checkout', 13),
          ],
          source: 'list_events namespace=shop warnings_only=true',
        },
        logs: [
          {
            value: {
              pod: 'checkout-new-1',
              container: 'checkout',
              previous: true,
              log: '{"level":"info","msg":"starting"}\n{"level":"fatal","msg":"invalid configuration: payments.idempotencyKeyHeader is required"}\n',
            },
            source: 'get_pod_logs namespace=shop pod=checkout-new-1 previous=true',
          },
        ],
      }),
    );
    expect(decision.action).toBe('rollback');
    expect(decision.culprit).toEqual({ kind: 'Deployment', namespace: 'shop', name: 'checkout' });
    expect(decision.cause).toBe('crash_loop');
    expect(decision.remediation).toEqual({
      tool: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'checkout', to_revision: 2 },
    });
    expect(decision.diagnosis).toBe(
      'Deployment shop/checkout (revision 3 (checkout:2.4.1)) crash-loops (CrashLoopBackOff) since its rollout 14 minutes ago; container checkout exits with code 1, its last log line: {"level":"fatal","msg":"invalid configuration: payments.idempotencyKeyHeader is required"}; revision 2 (checkout:2.4.0) was healthy.',
    );
    expect(decision.evidence).toContainEqual({
      source: 'get_pod_logs namespace=shop pod=checkout-new-1 previous=true',
      line: '{"level":"fatal","msg":"invalid configuration: payments.idempotencyKeyHeader is required"}',
    });
    expect(decision.evidence).toContainEqual({
      source: 'list_events namespace=shop warnings_only=true',
      line: 'Pod/checkout-new-1 BackOff ×3: Back-off restarting failed container checkout',
    });
    expect(
      decision.evidence.some((e) => e.line.startsWith('Pod checkout-new-1 (revision 3): CrashLoopBackOff')),
    ).toBe(true);
  });

  it('targets the newest healthy earlier revision, skipping one that also failed', () => {
    const pods = [...badRollout(), pod('checkout-mid-1', 2, 20, crashLoop)];
    const decision = decide(input({ pods }));
    // Revision 2 has failing Pods too: the failures are not only the newest revision's.
    expect(decision.action).toBe('refused');
  });

  it('rolls back to an earlier revision that served long enough even when scaled to zero', () => {
    const pods = [
      pod('checkout-new-1', 3, 30, {
        ...crashLoop,
        last_termination: { reason: 'OOMKilled', exit_code: 137, finished_at: ago(1) },
      }),
    ];
    const decision = decide(
      input({
        pods,
        history: {
          value: [
            revision(3, 30, 0, true, 'checkout:2.4.1'),
            revision(2, 3 * 24 * 60, 0, false, 'checkout:2.4.0'),
          ],
          source: 'get_rollout_history namespace=shop name=checkout',
        },
      }),
    );
    expect(decision.action).toBe('rollback');
    expect(decision.cause).toBe('oom_killed');
    expect(decision.remediation?.arguments).toEqual({ namespace: 'shop', name: 'checkout', to_revision: 2 });
  });

  it('refuses OOM kills with no recent change', () => {
    const oom = {
      ...crashLoop,
      image: 'registry.example.com/shop/checkout:2.4.0',
      last_termination: { reason: 'OOMKilled', exit_code: 137, finished_at: ago(1) },
    };
    const decision = decide(
      input({
        pods: [pod('checkout-a', 2, 20, oom), pod('checkout-b', 2, 2 * 24 * 60)],
        history: {
          value: [
            revision(2, 2 * 24 * 60, 1, true, 'checkout:2.4.0'),
            revision(1, 3 * 24 * 60, 0, false, 'checkout:2.3.9'),
          ],
          source: 'get_rollout_history namespace=shop name=checkout',
        },
      }),
    );
    expect(decision.action).toBe('refused');
    expect(decision.refusal).toBe('oom-no-recent-change');
    expect(decision.remediation).toBeNull();
    expect(decision.explanation).toMatch(/memory limit/);
  });

  it('refuses a paused Deployment, whatever else is wrong', () => {
    const decision = decide(
      input({
        pods: badRollout(),
        deployment: {
          value: deployment({ paused: true }),
          source: 'get_deployment namespace=shop name=checkout',
        },
      }),
    );
    expect(decision.action).toBe('refused');
    expect(decision.refusal).toBe('deployment-paused');
    expect(decision.evidence).toContainEqual({
      source: 'get_deployment namespace=shop name=checkout',
      line: 'Deployment shop/checkout is paused (spec.paused: true)',
    });
  });

  it('refuses unschedulable Pods', () => {
    const pending: PodView = {
      ...pod('checkout-p', 3, 5, { state: 'waiting', reason: 'ContainerCreating', ready: false }),
      phase: 'Pending',
      status: 'Pending',
    };
    const triage: Triage = {
      ...TRIAGE,
      workloads: [
        {
          ...TRIAGE.workloads[0]!,
          findings: [{ kind: 'unschedulable', evidence: 'Pod checkout-p: FailedScheduling ×4', pod: null }],
        },
      ],
    };
    const decision = decide(input({ pods: [pending] }, triage));
    expect(decision.action).toBe('refused');
    expect(decision.refusal).toBe('unschedulable');
    expect(decision.cause).toBe('unschedulable');
  });

  it('restarts Pods of an unchanged template that run but fail readiness', () => {
    const stuck: Partial<ContainerView> = { ready: false, problem: null };
    const decision = decide(
      input({
        pods: [pod('checkout-a', 2, 3 * 24 * 60, stuck), pod('checkout-b', 2, 3 * 24 * 60, stuck)],
        events: {
          value: [
            warning(
              'Pod/checkout-a',
              'Unhealthy',
              'Readiness probe failed: HTTP probe failed with statuscode: 503',
              25,
            ),
          ],
          source: 'list_events namespace=shop warnings_only=true',
        },
        history: {
          value: [
            revision(2, 3 * 24 * 60, 0, true, 'checkout:2.4.0'),
            revision(1, 4 * 24 * 60, 0, false, 'checkout:2.3.9'),
          ],
          source: 'get_rollout_history namespace=shop name=checkout',
        },
      }),
    );
    expect(decision.action).toBe('restart');
    expect(decision.cause).toBe('probe_failure');
    expect(decision.remediation).toEqual({
      tool: 'restart_service',
      arguments: { namespace: 'shop', name: 'checkout' },
    });
    expect(decision.diagnosis).toBe(
      'Deployment shop/checkout (revision 2 (checkout:2.4.0)) runs but fails its readiness probe since 25 minutes ago, with no rollout since 3 days ago.',
    );
  });

  it('proposes nothing when nothing is unhealthy', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      triage: {
        value: { ...TRIAGE, counts: { deployments: 1, pods: 2, warning_events: 0 }, workloads: [] },
        source: 'triage_namespace namespace=shop',
      },
    });
    expect(decision).toMatchObject({ action: 'none', culprit: null, cause: null, remediation: null });
    expect(decision.diagnosis).toBe('Nothing in namespace shop is unhealthy.');
  });

  it('reports a namespace with nothing in it as not found, never healthy', () => {
    const decision = decide({
      namespace: 'nope',
      now: NOW,
      triage: {
        value: {
          namespace: 'nope',
          counts: { deployments: 0, pods: 0, warning_events: 0 },
          workloads: [],
        },
        source: 'triage_namespace namespace=nope',
      },
    });
    expect(decision).toMatchObject({ action: 'not_found', culprit: null, remediation: null });
    expect(decision.diagnosis).toBe(
      'Namespace nope has no Deployments, Pods or Warning events: it does not exist, or it is empty.',
    );
    expect(decision.evidence).toEqual([
      {
        source: 'triage_namespace namespace=nope',
        line: 'namespace nope: 0 Deployment(s), 0 Pod(s), 0 Warning event(s)',
      },
    ]);
  });

  it('reports a named Deployment the cluster does not have as not found, quoting the answer', () => {
    const answer =
      "Deployment 'nope' in namespace 'shop' not found on cluster 'sentinel-sim'. list_deployments shows the Deployments that exist.";
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      triage: { value: TRIAGE, source: 'triage_namespace namespace=shop' },
      suspect: {
        name: 'nope',
        logs: [],
        missing: { value: answer, source: 'get_deployment namespace=shop name=nope' },
      },
    });
    expect(decision).toMatchObject({ action: 'not_found', culprit: null, remediation: null });
    expect(decision.diagnosis).toBe('Deployment shop/nope does not exist.');
    expect(decision.evidence).toContainEqual({
      source: 'get_deployment namespace=shop name=nope',
      line: answer,
    });
  });

  it('proposes nothing for a named Deployment that is healthy', () => {
    const decision = decide(
      input({
        pods: [pod('checkout-a', 2, 60)],
        deployment: {
          value: deployment({ replicas: { desired: 1, ready: 1, available: 1, updated: 1 } }),
          source: 'get_deployment',
        },
        triage: undefined,
      }),
    );
    expect(decision.action).toBe('none');
    expect(decision.diagnosis).toBe('Deployment shop/checkout is healthy: 1 of 1 replicas available.');
  });

  it('is deterministic: the same evidence gives the same decision', () => {
    const a = decide(input({ pods: badRollout() }));
    const b = decide(input({ pods: badRollout() }));
    expect(a).toEqual(b);
  });
});

describe('podCause', () => {
  it('ranks image pull over everything and reads the last termination', () => {
    expect(podCause(pod('a', 1, 1, { state: 'waiting', reason: 'ImagePullBackOff', ready: false }))).toBe(
      'image_pull',
    );
    expect(
      podCause(pod('a', 1, 1, { state: 'waiting', reason: 'CreateContainerConfigError', ready: false })),
    ).toBe('config_error');
    expect(podCause(pod('a', 1, 1, crashLoop))).toBe('crash_loop');
    expect(podCause(pod('a', 1, 1))).toBeUndefined();
  });

  it('calls a crash-looping container caught in its brief running window a crash loop, not a probe failure', () => {
    const running = { ...crashLoop, state: 'running', reason: null, ready: false } as const;
    expect(podCause(pod('a', 1, 1, running))).toBe('crash_loop');
    // Running and not ready without failed restarts is the readiness probe.
    expect(podCause(pod('a', 1, 1, { ...running, restarts: 0, last_termination: null }))).toBe(
      'probe_failure',
    );
  });
});

describe('helpers', () => {
  it('chooses the named Deployment, else the worst ranked Deployment', () => {
    expect(chooseSuspect(TRIAGE, undefined)).toBe('checkout');
    expect(chooseSuspect(TRIAGE, 'payments')).toBe('payments');
    expect(chooseSuspect({ ...TRIAGE, workloads: [] }, undefined)).toBeUndefined();
    const neighbours: Triage = {
      ...TRIAGE,
      workloads: [
        { ...TRIAGE.workloads[0]!, name: 'report-builder' },
        { ...TRIAGE.workloads[0]!, name: 'checkout' },
      ],
    };
    expect(chooseSuspect(neighbours, undefined, 'Checkout returns 502 since 02:10')).toBe('checkout');
    expect(chooseSuspect(neighbours, undefined, 'the report builder is stuck')).toBe('report-builder');
    expect(chooseSuspect(neighbours, undefined, 'everything is slow')).toBe('report-builder');
  });

  it('reads previous logs of at most two crashed containers', () => {
    expect(crashedContainers(badRollout())).toEqual([
      { pod: 'checkout-new-1', container: 'checkout' },
      { pod: 'checkout-new-2', container: 'checkout' },
    ]);
    expect(crashedContainers([pod('ok', 2, 5)])).toEqual([]);
  });

  it('picks the error lines of a log, else its last lines', () => {
    expect(telltaleLogLines('a\nb\nERROR boom\nc\n')).toEqual(['ERROR boom']);
    expect(telltaleLogLines('a\nb\nc\n')).toEqual(['b', 'c']);
  });
});

describe('chooseSuspectWorkload', () => {
  it('picks the worst workload of any kind triage ranks, or the one the symptom names, with its kind', () => {
    const workload = (kind: string, name: string) => ({ ...TRIAGE.workloads[0]!, kind, name });
    const triage = {
      ...TRIAGE,
      workloads: [workload('DaemonSet', 'log-shipper'), workload('StatefulSet', 'postgres')],
    };
    expect(chooseSuspectWorkload(triage, undefined)).toEqual({ kind: 'DaemonSet', name: 'log-shipper' });
    expect(chooseSuspectWorkload(triage, undefined, 'postgres is down')).toEqual({
      kind: 'StatefulSet',
      name: 'postgres',
    });
    expect(chooseSuspectWorkload(triage, 'checkout')).toEqual({ kind: 'Deployment', name: 'checkout' });
  });
});
