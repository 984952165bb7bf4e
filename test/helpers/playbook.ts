/**
 * Evidence builders for playbook class tests: Pods, revisions, events and a suspect as the
 * investigation tools' structured outputs carry them, at minutes before a fixed `NOW`.
 */
import type { EventView, PodView, RevisionView } from '../../agent/investigator/evidence.ts';
import type { SuspectEvidence } from '../../agent/investigator/playbook.ts';

export const NOW = Date.parse('2026-12-01T02:24:00Z');
export const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
export type ContainerView = PodView['containers'][number];
type DeploymentContainer = NonNullable<SuspectEvidence['deployment']>['value']['containers'][number];

/** A Pod of `revision` created `created` minutes ago, in `phase`, with one container `c` (default: running, ready). */
export function pod(
  name: string,
  revision: number,
  created: number,
  c: Partial<ContainerView> = {},
  phase = 'Running',
): PodView {
  const container: ContainerView = {
    name: 'app',
    type: 'app',
    image: 'app:1',
    state: 'running',
    reason: null,
    ready: true,
    restarts: 0,
    last_termination: null,
    problem: null,
    ...c,
  };
  return {
    name,
    phase,
    status: phase === 'Pending' ? 'Pending' : (container.reason ?? 'Running'),
    ready_containers: container.ready ? 1 : 0,
    total_containers: 1,
    restarts: container.restarts,
    created: ago(created),
    revision,
    containers: [container],
  };
}

/** A container in CrashLoopBackOff after `restarts` restarts, last terminated `reason` (`exit`). */
export const crashing = (exit = 1, reason = 'Error', restarts = 6): Partial<ContainerView> => ({
  state: 'waiting',
  reason: 'CrashLoopBackOff',
  ready: false,
  restarts,
  last_termination: { reason, exit_code: exit, finished_at: ago(1) },
});

/** Revision `n`, created `created` minutes ago, with `ready` ready Pods. */
export function rev(
  n: number,
  created: number,
  ready: number,
  extra: Partial<RevisionView> = {},
): RevisionView {
  return {
    revision: n,
    current: false,
    replica_set: `app-${n}`,
    images: [`app:${n}`],
    change_cause: null,
    created: ago(created),
    replicas: ready,
    ready,
    changes: [],
    ...extra,
  };
}

export const healthy = { state: 'healthy' as const, failures: [], basis: 'served' };

/** An event about `name` first seen `minutes` ago, `count` times. */
export function event(
  name: string,
  reason: string,
  message: string,
  minutes: number,
  { type = 'Warning', count = 4, kind = 'Pod' } = {},
): EventView {
  return {
    type,
    reason,
    object: { kind, name },
    count,
    first_seen: ago(minutes),
    last_seen: ago(0),
    message,
  };
}

export const sourced = <T>(value: T, source: string) => ({ value, source });

/** The evidence about Deployment `name`: its Pods and whatever else `s` gives. */
export function suspect(
  name: string,
  s: Omit<Partial<SuspectEvidence>, 'pods'> & { pods: PodView[] },
  containers: DeploymentContainer[] = [{ name: 'app', image: 'app:1', limits: {} }],
): SuspectEvidence {
  return {
    name,
    deployment: {
      value: {
        namespace: 'shop',
        name,
        revision: 1,
        paused: false,
        replicas: { desired: 2, ready: 0, available: 0, updated: 2 },
        conditions: [],
        containers,
      },
      source: `get_deployment name=${name}`,
    },
    events: { value: [], source: 'list_events' },
    logs: [],
    ...s,
    pods: { value: s.pods, source: `list_pods deployment=${name}` },
  };
}
