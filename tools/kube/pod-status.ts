/**
 * Pod status as `kubectl get pods` shows it (STATUS, READY, RESTARTS), and per-container states.
 * Mirrors `printPod` in k8s.io/kubernetes/pkg/printers/internalversion/printers.go, including
 * init containers, restartable (sidecar) init containers, and Terminating/Unknown for deleted Pods.
 */
import type { Pod } from './types.ts';
import { timeOf } from './deployment-util.ts';

/** The STATUS, READY and RESTARTS columns of `kubectl get pods`. */
export interface PodSummary {
  /** kubectl's STATUS: `Running`, `CrashLoopBackOff`, `Init:0/2`, `Init:ErrImagePull`, `Terminating`, ... */
  status: string;
  readyContainers: number;
  totalContainers: number;
  restarts: number;
  /** When the most recently restarted container last terminated (ms since epoch), if any. */
  lastRestartAt: number | undefined;
}

type ContainerStatus = NonNullable<NonNullable<Pod['status']>['containerStatuses']>[number];
type ContainerSpec = NonNullable<Pod['spec']>['containers'][number];

const isRestartable = (container: ContainerSpec | undefined) => container?.restartPolicy === 'Always';
const conditionTrue = (pod: Pod, type: string) =>
  pod.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

/** kubectl's STATUS / READY / RESTARTS for a Pod. */
export function podSummary(pod: Pod): PodSummary {
  const spec = pod.spec;
  const status = pod.status ?? {};
  const initSpecs = new Map((spec?.initContainers ?? []).map((c) => [c.name, c]));
  let total = spec?.containers.length ?? 0;
  for (const c of initSpecs.values()) if (isRestartable(c)) total++;
  let ready = 0;
  let restarts = 0;
  let lastRestart = 0;
  let sidecarRestarts = 0;
  let lastSidecarRestart = 0;

  let reason = status.reason || status.phase || 'Unknown';
  if (status.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (const [i, container] of initStatuses.entries()) {
    restarts += container.restartCount ?? 0;
    const finished = timeOf(container.lastState?.terminated?.finishedAt);
    lastRestart = Math.max(lastRestart, finished);
    const restartable = isRestartable(initSpecs.get(container.name));
    if (restartable) {
      sidecarRestarts += container.restartCount ?? 0;
      lastSidecarRestart = Math.max(lastSidecarRestart, finished);
    }
    const terminated = container.state?.terminated;
    const waiting = container.state?.waiting;
    if (terminated && terminated.exitCode === 0) continue;
    if (restartable && container.started) {
      if (container.ready) ready++;
      continue;
    }
    if (terminated) {
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
          ? `Init:Signal:${terminated.signal}`
          : `Init:ExitCode:${terminated.exitCode}`;
    } else if (waiting?.reason && waiting.reason !== 'PodInitializing') {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.size}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || conditionTrue(pod, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = status.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const container = statuses[i]!;
      restarts += container.restartCount ?? 0;
      lastRestart = Math.max(lastRestart, timeOf(container.lastState?.terminated?.finishedAt));
      const { waiting, terminated, running } = container.state ?? {};
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated)
        reason = terminated.signal ? `Signal:${terminated.signal}` : `ExitCode:${terminated.exitCode}`;
      else if (container.ready && running) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = conditionTrue(pod, 'Ready') ? 'Running' : 'NotReady';
  }

  if (pod.metadata?.deletionTimestamp && status.reason === 'NodeLost') reason = 'Unknown';
  else if (pod.metadata?.deletionTimestamp && status.phase !== 'Succeeded' && status.phase !== 'Failed') {
    reason = 'Terminating';
  }

  return {
    status: reason,
    readyContainers: ready,
    totalContainers: total,
    restarts,
    lastRestartAt: restarts > 0 && lastRestart > 0 ? lastRestart : undefined,
  };
}

/** One container's state, as `kubectl describe pod` lists it. */
export interface ContainerState {
  name: string;
  /** `init` for init containers (including sidecars), `app` otherwise. */
  type: 'init' | 'app';
  image: string | undefined;
  state: 'running' | 'waiting' | 'terminated' | 'unknown';
  /** Waiting or terminated reason: CrashLoopBackOff, ImagePullBackOff, ErrImagePull, OOMKilled, Error, CreateContainerConfigError, ... */
  reason: string | undefined;
  /** Waiting or terminated message from the kubelet (untrusted text). */
  message: string | undefined;
  /** Exit code when terminated. */
  exitCode: number | undefined;
  ready: boolean;
  restarts: number;
  /** The previous instance's termination (what `previous` logs show), if it has one. */
  lastTermination:
    { reason: string | undefined; exitCode: number; finishedAt: number | undefined } | undefined;
}

function stateOf(
  type: 'init' | 'app',
  status: ContainerStatus | undefined,
  name: string,
  image: string | undefined,
): ContainerState {
  const { waiting, terminated, running } = status?.state ?? {};
  const last = status?.lastState?.terminated;
  return {
    name,
    type,
    image: status?.image ?? image,
    state: running ? 'running' : waiting ? 'waiting' : terminated ? 'terminated' : 'unknown',
    reason: waiting?.reason ?? terminated?.reason ?? undefined,
    message: waiting?.message ?? terminated?.message ?? undefined,
    exitCode: terminated?.exitCode,
    ready: status?.ready ?? false,
    restarts: status?.restartCount ?? 0,
    lastTermination: last
      ? { reason: last.reason, exitCode: last.exitCode, finishedAt: timeOf(last.finishedAt) || undefined }
      : undefined,
  };
}

/** Every container of the Pod, init containers first, in spec order, with its current state. */
export function containerStates(pod: Pod): ContainerState[] {
  const init = new Map((pod.status?.initContainerStatuses ?? []).map((s) => [s.name, s]));
  const app = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  return [
    ...(pod.spec?.initContainers ?? []).map((c) => stateOf('init', init.get(c.name), c.name, c.image)),
    ...(pod.spec?.containers ?? []).map((c) => stateOf('app', app.get(c.name), c.name, c.image)),
  ];
}

/** A one-line description of a container's problem, e.g. `CrashLoopBackOff (last: OOMKilled, exit 137)`, or undefined when healthy. */
export function containerProblem(container: ContainerState): string | undefined {
  const last = container.lastTermination;
  const lastText = last ? `last: ${last.reason ?? 'terminated'}, exit ${last.exitCode}` : undefined;
  if (
    container.state === 'waiting' &&
    container.reason &&
    container.reason !== 'PodInitializing' &&
    container.reason !== 'ContainerCreating'
  ) {
    return lastText ? `${container.reason} (${lastText})` : container.reason;
  }
  if (container.state === 'terminated' && container.exitCode !== 0) {
    return `${container.reason ?? 'Error'} (exit ${container.exitCode})`;
  }
  if (container.state === 'running' && !container.ready && container.type === 'app') {
    return lastText ? `not ready (${lastText})` : 'not ready';
  }
  return undefined;
}
