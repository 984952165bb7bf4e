/**
 * The scheduler and the kubelets of the simulated nodes: binds Pods to nodes, pulls images, starts
 * containers and plays out each container's fate (healthy, crash loop with back-off, OOM kill,
 * image pull failure, readiness failure, liveness and startup probe kills, unschedulable) — and the
 * container config errors its ConfigMap and Secret references cause (./container-config.ts), writing Pod status and emitting the events
 * the real components emit (Scheduled, FailedScheduling, Pulling, Pulled, Created, Started, Failed,
 * BackOff, Killing, Unhealthy). Container logs are kept per container instance (current and
 * previous) for `pods/log`.
 *
 * Timing follows the kubelet: crash-loop back-off 10s doubling to 5m, image pull back-off the same,
 * readiness probes every `periodSeconds` (default 10s) failing after `failureThreshold` (default 3);
 * liveness and startup probes likewise, then the kill and restart of ./probes.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SimClock } from '../clock.ts';
import type { ContainerFate } from '../fate.ts';
import type { ObjectStore, StoreChange } from '../store.ts';
import type { Condition, Container, ContainerState, ContainerStatus, Pod } from '../types.ts';
import type { EventRecorder } from './events.ts';
import { containerConfigError } from './container-config.ts';
import { missingPullSecrets, missingPullSecretsMessage, pullErrorMessage } from './image-pull.ts';
import { targetNodeName } from './daemonset.ts';
import {
  PROBE_KILL_TERMINATION,
  probeFailedMessage,
  probeKillMessage,
  probeSettings,
  type ProbeSettings,
} from './probes.ts';

const KUBELET = 'kubelet';
const SCHEDULER = { component: 'default-scheduler' };
const BACKOFF_INITIAL_S = 10;
const BACKOFF_MAX_S = 300;
const IMAGE_PULL_S = 2;
/** How long a container takes to stop after SIGTERM (well within the grace period). */
const STOP_S = 1;
/** The pod worker retries a failed sync (a container config error) after workerBackOffPeriod, 10 s. */
const CONFIG_RETRY_S = 10;
/** kube-scheduler retries unschedulable Pods at least every 5 minutes (podMaxInUnschedulablePodsDuration). */
const RESCHEDULE_S = 300;

export interface SimNode {
  name: string;
  internalIP: string;
}

export interface LogLine {
  at: number;
  text: string;
}

/** One run of a container: what `pods/log` reads. */
export interface ContainerInstance {
  containerID: string;
  startedAt: number;
  finishedAt?: number;
  lines: LogLine[];
}

interface ContainerRuntime {
  spec: Container;
  fate: ContainerFate;
  state: ContainerState;
  lastState: ContainerState | Record<string, never>;
  ready: boolean;
  started: boolean;
  restartCount: number;
  /** Failed runs (crash loop) or failed pulls so far; drives the back-off. */
  failures: number;
  imageID: string;
  /** Newest last; at most two kept (current and previous), like the kubelet. */
  instances: ContainerInstance[];
  probeFailures: number;
}

interface PodRuntime {
  uid: string;
  namespace: string;
  name: string;
  node?: SimNode;
  podIP?: string;
  startTime?: number;
  containers: ContainerRuntime[];
  scheduledFailure?: string;
  stopped: boolean;
}

export type FateResolver = (pod: Pod, container: Container) => ContainerFate;

export class Kubelet {
  #store: ObjectStore;
  #clock: SimClock;
  #recorder: EventRecorder;
  #nodes: SimNode[];
  #resolveFate: FateResolver;
  #pods = new Map<string, PodRuntime>();
  #pulledImages = new Set<string>();
  #nextNode = 0;
  #nextIP = 10;

  constructor(
    store: ObjectStore,
    clock: SimClock,
    recorder: EventRecorder,
    nodes: SimNode[],
    resolveFate: FateResolver,
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#recorder = recorder;
    this.#nodes = nodes;
    this.#resolveFate = resolveFate;
    store.subscribe((change) => this.#onChange(change));
  }

  /** Logs of a container instance: `previous` selects the last terminated run. Undefined when none. */
  instances(uid: string, containerName: string): ContainerInstance[] | undefined {
    return this.#pods.get(uid)?.containers.find((container) => container.spec.name === containerName)
      ?.instances;
  }

  /**
   * The containers of Pod `uid` that have run at least once, with their spec and fate: what a
   * metrics pipeline (kubelet summary API → metrics-server) can report usage for. Undefined for a
   * Pod the kubelet does not run.
   */
  ranContainers(uid: string): { spec: Container; fate: ContainerFate }[] | undefined {
    return this.#pods
      .get(uid)
      ?.containers.filter((container) => container.instances.length > 0)
      .map(({ spec, fate }) => ({ spec, fate }));
  }

  #onChange(change: StoreChange): void {
    if (change.storage !== 'pods') return;
    const pod = change.object as Pod;
    const uid = pod.metadata.uid!;
    if (change.type === 'ADDED') {
      const { namespace, name } = pod.metadata;
      this.#clock.schedule(this.#clock.now(), () => this.#schedulePod(uid, namespace, name));
    } else if (
      change.type === 'MODIFIED' &&
      pod.metadata.deletionTimestamp &&
      !change.previous?.metadata.deletionTimestamp
    ) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? 30;
      this.#clock.schedule(this.#clock.now(), () => this.#terminate(uid, grace));
    } else if (change.type === 'DELETED') {
      const runtime = this.#pods.get(uid);
      if (runtime) runtime.stopped = true;
      this.#pods.delete(uid);
    }
  }

  /** The stored Pod of `runtime`, uncopied (read-only). */
  #pod(runtime: PodRuntime): Readonly<Pod> | undefined {
    const pod = this.#store.peekOne<Pod>('pods', runtime.namespace, runtime.name);
    return pod?.metadata.uid === runtime.uid ? pod : undefined;
  }

  #after(runtime: PodRuntime, seconds: number, action: () => void): void {
    this.#clock.schedule(this.#clock.now() + seconds * 1000, () => {
      if (!runtime.stopped && this.#pod(runtime)) action();
    });
  }

  #event(
    runtime: PodRuntime,
    container: ContainerRuntime | undefined,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
  ) {
    const pod = this.#pod(runtime);
    if (!pod) return;
    this.#recorder.record(
      pod,
      type,
      reason,
      message,
      { component: KUBELET, host: runtime.node?.name },
      container && `spec.containers{${container.spec.name}}`,
    );
  }

  #schedulePod(uid: string, namespace: string | undefined, name: string): void {
    const found = this.#store.peekOne<Pod>('pods', namespace, name);
    if (!found || found.metadata.uid !== uid || found.metadata.deletionTimestamp) return;
    const pod = structuredClone(found);
    let runtime = this.#pods.get(uid);
    if (!runtime) {
      runtime = {
        uid,
        namespace: pod.metadata.namespace!,
        name: pod.metadata.name,
        stopped: false,
        containers: pod.spec.containers.map((spec) => ({
          spec,
          fate: this.#resolveFate(pod, spec),
          state: { waiting: { reason: 'ContainerCreating' } },
          lastState: {},
          ready: false,
          started: false,
          restartCount: 0,
          failures: 0,
          imageID: '',
          instances: [],
          probeFailures: 0,
        })),
      };
      this.#pods.set(uid, runtime);
    }
    const unschedulable = runtime.containers
      .map((container) => container.fate)
      .find((fate) => fate.kind === 'unschedulable');
    if (unschedulable) {
      runtime.scheduledFailure = unschedulable.message;
      this.#recorder.record(pod, 'Warning', 'FailedScheduling', unschedulable.message, SCHEDULER);
      this.#writeStatus(runtime);
      this.#after(runtime, RESCHEDULE_S, () => this.#schedulePod(uid, runtime.namespace, runtime.name));
      return;
    }
    // A Pod pinned to a node (spec.nodeName, or a DaemonSet's metadata.name node affinity) goes there.
    const target = targetNodeName(pod);
    const node = target
      ? this.#nodes.find((candidate) => candidate.name === target)
      : this.#nodes[this.#nextNode++ % this.#nodes.length]!;
    if (!node) {
      runtime.scheduledFailure = `0/${this.#nodes.length} nodes are available: ${this.#nodes.length} node(s) didn't match Pod's node affinity/selector.`;
      this.#recorder.record(pod, 'Warning', 'FailedScheduling', runtime.scheduledFailure, SCHEDULER);
      this.#writeStatus(runtime);
      return;
    }
    runtime.node = node;
    runtime.podIP = `10.244.${1 + ((this.#nextIP >> 8) % 250)}.${this.#nextIP++ % 256}`;
    runtime.startTime = this.#clock.now();
    const bound = structuredClone(pod);
    bound.spec.nodeName = node.name;
    this.#store.update('pods', bound);
    this.#recorder.record(
      pod,
      'Normal',
      'Scheduled',
      `Successfully assigned ${runtime.namespace}/${runtime.name} to ${node.name}`,
      SCHEDULER,
    );
    this.#writeStatus(runtime);
    for (const container of runtime.containers)
      this.#after(runtime, 0.2, () => this.#pull(runtime, container));
  }

  #pull(runtime: PodRuntime, container: ContainerRuntime): void {
    const image = container.spec.image;
    const cacheKey = `${runtime.node!.name}|${image}`;
    if (
      container.fate.kind !== 'imagePullError' &&
      this.#pulledImages.has(cacheKey) &&
      container.spec['imagePullPolicy'] !== 'Always'
    ) {
      this.#event(
        runtime,
        container,
        'Normal',
        'Pulled',
        `Container image "${image}" already present on machine`,
      );
      this.#start(runtime, container);
      return;
    }
    const pod = this.#pod(runtime);
    const missingSecrets = pod ? missingPullSecrets(this.#store, pod as Pod) : [];
    if (missingSecrets.length > 0) {
      // getPullSecretsForPod: about the Pod, not one container.
      this.#event(
        runtime,
        undefined,
        'Warning',
        'FailedToRetrieveImagePullSecret',
        missingPullSecretsMessage(missingSecrets),
      );
    }
    this.#event(runtime, container, 'Normal', 'Pulling', `Pulling image "${image}"`);
    if (container.fate.kind === 'imagePullError') {
      const fate = container.fate;
      const error = fate.message ?? pullErrorMessage(image, fate.cause);
      this.#after(runtime, 1, () => {
        container.failures++;
        this.#event(runtime, container, 'Warning', 'Failed', `Failed to pull image "${image}": ${error}`);
        this.#event(runtime, container, 'Warning', 'Failed', 'Error: ErrImagePull');
        container.state = {
          waiting: { reason: 'ErrImagePull', message: `Failed to pull image "${image}": ${error}` },
        };
        this.#writeStatus(runtime);
        this.#after(runtime, 1, () => {
          this.#event(runtime, container, 'Normal', 'BackOff', `Back-off pulling image "${image}"`);
          this.#event(runtime, container, 'Warning', 'Failed', 'Error: ImagePullBackOff');
          container.state = {
            waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${image}"` },
          };
          this.#writeStatus(runtime);
          this.#after(runtime, backoffSeconds(container.failures), () => this.#pull(runtime, container));
        });
      });
      return;
    }
    this.#after(runtime, IMAGE_PULL_S, () => {
      this.#pulledImages.add(cacheKey);
      const size = 40_000_000 + (createHash('sha256').update(image).digest().readUInt32BE(0) % 60_000_000);
      this.#event(
        runtime,
        container,
        'Normal',
        'Pulled',
        `Successfully pulled image "${image}" in ${IMAGE_PULL_S}s (${IMAGE_PULL_S}s including waiting). Image size: ${size} bytes.`,
      );
      this.#start(runtime, container);
    });
  }

  #start(runtime: PodRuntime, container: ContainerRuntime): void {
    const pod = this.#pod(runtime);
    const configError = pod && containerConfigError(this.#store, pod as Pod, container.spec);
    if (configError) {
      // kuberuntime_container.go startContainer: Warning Failed "Error: <err>", CreateContainerConfigError.
      this.#event(runtime, container, 'Warning', 'Failed', `Error: ${configError}`);
      container.state = { waiting: { reason: 'CreateContainerConfigError', message: configError } };
      container.ready = false;
      this.#writeStatus(runtime);
      this.#after(runtime, CONFIG_RETRY_S, () => this.#pull(runtime, container));
      return;
    }
    const now = this.#clock.now();
    const containerID = `containerd://${randomBytes(32).toString('hex')}`;
    container.imageID = imageID(container.spec.image);
    this.#event(runtime, container, 'Normal', 'Created', `Created container: ${container.spec.name}`);
    this.#event(runtime, container, 'Normal', 'Started', `Started container ${container.spec.name}`);
    container.state = { running: { startedAt: this.#clock.timestamp(now) } };
    container.started = true;
    container.ready = false;
    container.probeFailures = 0;
    // A fate rule's `when` may hold now and not at the last start (a dependency broke or recovered).
    const current = this.#pod(runtime);
    if (current) container.fate = this.#resolveFate(current as Pod, container.spec);
    const fate = container.fate;
    const instance: ContainerInstance = {
      containerID,
      startedAt: now,
      lines: ('logs' in fate ? fate.logs : []).map((text, index) => ({ at: now + 50 * (index + 1), text })),
    };
    container.instances = [...container.instances.slice(-1), instance];
    this.#writeStatus(runtime);
    switch (fate.kind) {
      case 'healthy':
        this.#after(runtime, fate.readyAfterSeconds, () =>
          this.#setReady(runtime, container, instance, true),
        );
        return;
      case 'readinessFailure': {
        const failFrom = Math.max(fate.since ?? now, now);
        if (failFrom > now)
          this.#after(runtime, fate.readyAfterSeconds, () =>
            this.#setReady(runtime, container, instance, true),
          );
        this.#after(runtime, (failFrom - now) / 1000 + fate.readyAfterSeconds, () =>
          this.#probeFails(runtime, container, instance),
        );
        return;
      }
      case 'livenessFailure': {
        this.#after(runtime, fate.readyAfterSeconds, () =>
          this.#setReady(runtime, container, instance, true),
        );
        const probe = probeSettings(container.spec, 'liveness');
        if (!probe) return;
        const failFrom = Math.max(fate.since ?? now, now + Math.max(1, probe.initialDelaySeconds) * 1000);
        this.#after(runtime, (failFrom - now) / 1000, () =>
          this.#probeKill(runtime, container, instance, 'liveness', probe),
        );
        return;
      }
      case 'startupFailure': {
        const probe = probeSettings(container.spec, 'startup');
        if (!probe) {
          this.#after(runtime, 2, () => this.#setReady(runtime, container, instance, true));
          return;
        }
        this.#after(runtime, Math.max(1, probe.initialDelaySeconds), () =>
          this.#probeKill(runtime, container, instance, 'startup', probe),
        );
        return;
      }
      case 'crashLoop':
      case 'oomKilled': {
        // A failure that begins later: ready until `since`, then the first exit.
        const failFrom = fate.since ?? now;
        if (failFrom > now) {
          this.#after(runtime, 2, () => this.#setReady(runtime, container, instance, true));
          this.#after(runtime, (failFrom - now) / 1000, () => this.#exit(runtime, container, instance));
          return;
        }
        this.#after(runtime, fate.runSeconds, () => this.#exit(runtime, container, instance));
        return;
      }
      default:
        return;
    }
  }

  #setReady(
    runtime: PodRuntime,
    container: ContainerRuntime,
    instance: ContainerInstance,
    ready: boolean,
  ): void {
    if (container.instances.at(-1) !== instance || instance.finishedAt !== undefined) return;
    if (container.ready === ready) return;
    container.ready = ready;
    this.#writeStatus(runtime);
  }

  #probeFails(runtime: PodRuntime, container: ContainerRuntime, instance: ContainerInstance): void {
    const fate = container.fate;
    if (fate.kind !== 'readinessFailure' || container.instances.at(-1) !== instance) return;
    const probe = container.spec.readinessProbe ?? {};
    const period = Number(probe['periodSeconds'] ?? 10);
    const threshold = Number(probe['failureThreshold'] ?? 3);
    container.probeFailures++;
    this.#event(runtime, container, 'Warning', 'Unhealthy', `Readiness probe failed: ${fate.probeMessage}`);
    if (fate.failureLogs.length > 0) {
      instance.lines.push({
        at: this.#clock.now(),
        text: fate.failureLogs[(container.probeFailures - 1) % fate.failureLogs.length]!,
      });
    }
    if (container.probeFailures >= threshold) this.#setReady(runtime, container, instance, false);
    this.#after(runtime, period, () => this.#probeFails(runtime, container, instance));
  }

  /**
   * One failing liveness or startup probe of `instance`: the `Unhealthy` event (and a failure log
   * line); at `failureThreshold` consecutive failures the `Killing` event and, once the container
   * has stopped, its exit (137, Error) and restart with back-off; else the next probe in `periodSeconds`.
   */
  #probeKill(
    runtime: PodRuntime,
    container: ContainerRuntime,
    instance: ContainerInstance,
    type: 'liveness' | 'startup',
    probe: ProbeSettings,
  ): void {
    const fate = container.fate;
    if (fate.kind !== 'livenessFailure' && fate.kind !== 'startupFailure') return;
    if (container.instances.at(-1) !== instance || instance.finishedAt !== undefined) return;
    container.probeFailures++;
    this.#event(runtime, container, 'Warning', 'Unhealthy', probeFailedMessage(type, fate.probeMessage));
    if (fate.failureLogs.length > 0) {
      instance.lines.push({
        at: this.#clock.now(),
        text: fate.failureLogs[(container.probeFailures - 1) % fate.failureLogs.length]!,
      });
    }
    if (container.probeFailures < probe.failureThreshold) {
      this.#after(runtime, probe.periodSeconds, () =>
        this.#probeKill(runtime, container, instance, type, probe),
      );
      return;
    }
    this.#event(runtime, container, 'Normal', 'Killing', probeKillMessage(type, container.spec.name));
    this.#after(runtime, STOP_S, () => this.#exit(runtime, container, instance, PROBE_KILL_TERMINATION));
  }

  /** The end of `instance`: `termination` (exit code, reason) or, by default, what its fate says. */
  #exit(
    runtime: PodRuntime,
    container: ContainerRuntime,
    instance: ContainerInstance,
    termination?: { exitCode: number; reason: string },
  ): void {
    const fate = container.fate;
    if (!termination && fate.kind !== 'crashLoop' && fate.kind !== 'oomKilled') return;
    if (container.instances.at(-1) !== instance || instance.finishedAt !== undefined) return;
    const now = this.#clock.now();
    instance.finishedAt = now;
    const ended = termination ?? {
      exitCode: fate.kind === 'crashLoop' ? fate.exitCode : 137,
      reason:
        fate.kind === 'oomKilled'
          ? 'OOMKilled'
          : fate.kind === 'crashLoop' && fate.exitCode === 0
            ? 'Completed'
            : 'Error',
    };
    container.failures++;
    container.ready = false;
    container.lastState = {
      terminated: {
        exitCode: ended.exitCode,
        reason: ended.reason,
        startedAt: this.#clock.timestamp(instance.startedAt),
        finishedAt: this.#clock.timestamp(now),
        containerID: instance.containerID,
      },
    };
    const backoff = backoffSeconds(container.failures);
    const pod = this.#pod(runtime)!;
    container.state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${formatSeconds(backoff)} restarting failed container=${container.spec.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
      },
    };
    this.#event(
      runtime,
      container,
      'Warning',
      'BackOff',
      `Back-off restarting failed container ${container.spec.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`,
    );
    this.#writeStatus(runtime);
    this.#after(runtime, backoff, () => {
      container.restartCount++;
      this.#event(
        runtime,
        container,
        'Normal',
        'Pulled',
        `Container image "${container.spec.image}" already present on machine`,
      );
      this.#start(runtime, container);
    });
  }

  /**
   * Asks the fate resolver again for every running container, after something a fate rule's `when`
   * reads changed (a workload's availability, the time). A container whose fate became a crash
   * loop or OOM kill prints that fate's logs and exits `runSeconds` later (the app losing its
   * database); one whose fate became healthy turns ready. A container in back-off takes its new
   * fate at its next start.
   */
  refate(): void {
    for (const runtime of this.#pods.values()) {
      const pod = this.#pod(runtime);
      if (!pod || runtime.stopped) continue;
      for (const container of runtime.containers) {
        const fate = this.#resolveFate(pod as Pod, container.spec);
        if (JSON.stringify(fate) === JSON.stringify(container.fate)) continue;
        container.fate = fate;
        const instance = container.instances.at(-1);
        if (!instance || instance.finishedAt !== undefined || !('running' in container.state)) continue;
        if (fate.kind === 'crashLoop' || fate.kind === 'oomKilled') {
          const now = this.#clock.now();
          instance.lines.push(...fate.logs.map((text, index) => ({ at: now + 50 * (index + 1), text })));
          const delay = Math.max(0, (fate.since ?? now) - now) / 1000 + fate.runSeconds;
          this.#after(runtime, delay, () => this.#exit(runtime, container, instance));
        } else if (fate.kind === 'healthy') {
          this.#after(runtime, fate.readyAfterSeconds, () =>
            this.#setReady(runtime, container, instance, true),
          );
        }
      }
    }
  }

  /** Graceful deletion: stop running containers (Killing), then remove the Pod object. */
  #terminate(uid: string, graceSeconds: number): void {
    const runtime = this.#pods.get(uid);
    const pod = this.#store.peek<Pod>('pods').find((candidate) => candidate.metadata.uid === uid);
    if (!pod) return;
    const { namespace, name } = pod.metadata;
    let stopSeconds = 0;
    if (runtime) {
      for (const container of runtime.containers) {
        if ('running' in container.state) {
          this.#event(runtime, container, 'Normal', 'Killing', `Stopping container ${container.spec.name}`);
          stopSeconds = Math.min(STOP_S, graceSeconds);
          const instance = container.instances.at(-1);
          if (instance) instance.finishedAt = this.#clock.now() + stopSeconds * 1000;
        }
      }
      runtime.stopped = true;
    }
    this.#clock.schedule(this.#clock.now() + stopSeconds * 1000, () => {
      const current = this.#store.get<Pod>('pods', namespace, name);
      if (current?.metadata.uid === uid) this.#store.delete('pods', namespace, name);
    });
  }

  /** Writes the Pod's status from the runtime state (`kubelet.generateAPIPodStatus`). */
  #writeStatus(runtime: PodRuntime): void {
    const pod = this.#pod(runtime);
    if (!pod || runtime.stopped) return;
    const now = this.#clock.timestamp();
    const previous = pod.status?.conditions ?? [];
    const condition = (type: string, ok: boolean, reason?: string, message?: string): Condition => {
      const status = ok ? 'True' : 'False';
      const before = previous.find((existing) => existing.type === type);
      return {
        type,
        status,
        lastProbeTime: null,
        lastTransitionTime: before?.status === status ? before.lastTransitionTime! : now,
        ...(reason && { reason }),
        ...(message && { message }),
      };
    };
    const statuses: ContainerStatus[] = runtime.containers.map((container) => ({
      name: container.spec.name,
      image: container.spec.image,
      imageID: container.imageID,
      ...(container.instances.length > 0 &&
        'running' in container.state && { containerID: container.instances.at(-1)!.containerID }),
      ...(!('running' in container.state) &&
        'terminated' in container.lastState && { containerID: container.lastState.terminated.containerID }),
      ready: container.ready,
      // A startup probe that has not passed holds `started` false (and readiness with it).
      started:
        'running' in container.state &&
        !(container.fate.kind === 'startupFailure' && probeSettings(container.spec, 'startup')),
      restartCount: container.restartCount,
      state: container.state,
      lastState: container.lastState,
    }));
    const unready = runtime.containers
      .filter((container) => !container.ready)
      .map((container) => container.spec.name);
    const allReady = unready.length === 0;
    const notReadyMessage = `containers with unready status: [${unready.join(' ')}]`;
    const status: NonNullable<Pod['status']> = runtime.node
      ? {
          phase: runtime.containers.some((container) => container.started) ? 'Running' : 'Pending',
          conditions: [
            condition('PodReadyToStartContainers', true),
            condition('Initialized', true),
            condition(
              'Ready',
              allReady,
              allReady ? undefined : 'ContainersNotReady',
              allReady ? undefined : notReadyMessage,
            ),
            condition(
              'ContainersReady',
              allReady,
              allReady ? undefined : 'ContainersNotReady',
              allReady ? undefined : notReadyMessage,
            ),
            condition('PodScheduled', true),
          ],
          hostIP: runtime.node.internalIP,
          podIP: runtime.podIP!,
          startTime: this.#clock.timestamp(runtime.startTime),
          containerStatuses: statuses,
          qosClass: pod.status?.qosClass ?? 'BestEffort',
        }
      : {
          phase: 'Pending',
          conditions: [condition('PodScheduled', false, 'Unschedulable', runtime.scheduledFailure)],
          qosClass: pod.status?.qosClass ?? 'BestEffort',
        };
    if (runtime.node) {
      (status as Record<string, unknown>)['hostIPs'] = [{ ip: runtime.node.internalIP }];
      (status as Record<string, unknown>)['podIPs'] = [{ ip: runtime.podIP }];
    }
    this.#store.update('pods', { ...pod, status }, undefined, { handOver: true });
  }
}

/** Kubelet back-off after `failures` failures: 10s, 20s, 40s, ... capped at 5m. */
export function backoffSeconds(failures: number): number {
  return Math.min(BACKOFF_MAX_S, BACKOFF_INITIAL_S * 2 ** Math.max(0, failures - 1));
}

/** Go `time.Duration.String()` for whole seconds: 10s, 1m20s, 5m0s. */
function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

function imageID(image: string): string {
  const repository = image.split('@')[0]!.replace(/:[^/:]+$/, '');
  return `${repository}@sha256:${createHash('sha256').update(image).digest('hex')}`;
}
