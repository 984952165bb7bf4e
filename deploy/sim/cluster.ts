/**
 * The simulated cluster without its HTTP front: clock, object store, event recorder, the
 * Deployment, ReplicaSet, StatefulSet and DaemonSet controllers, a garbage collector, and the scheduler/kubelet, all driven by
 * one discrete-event loop. Building it replays the scenario's history up to t = 0, so the incident is
 * already in progress when the API starts serving.
 */
import { applyDefaults } from './api/defaults.ts';
import { applyPatch } from './api/patch.ts';
import { SimClock } from './clock.ts';
import { DeploymentController } from './controllers/deployment.ts';
import { controllerOf } from './controllers/deployment-util.ts';
import { GarbageCollector } from './controllers/garbage-collector.ts';
import { EventRecorder } from './controllers/events.ts';
import { Kubelet } from './controllers/kubelet.ts';
import type { SimNode } from './controllers/kubelet.ts';
import { ReplicaSetController } from './controllers/replicaset.ts';
import { StatefulSetController } from './controllers/statefulset.ts';
import { DaemonSetController } from './controllers/daemonset.ts';
import { TemplateReconciler } from './controllers/reconciler.ts';
import { availabilityFlipped, workloadAvailable } from './scenario/availability.ts';
import { fateResolver } from './scenario/fates.ts';
import type { Scenario } from './scenario/schema.ts';
import { resourceTypeForKind } from './resources.ts';
import { ObjectStore } from './store.ts';
import type { KubeObject, ReplicaSet } from './types.ts';

/** Kubernetes version the simulator reports (kubectl 1.32 is the client it is tested with). */
export const SIMULATED_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.2' } as const;

/** How many controller passes one settle may take before giving up (a guard against feedback loops). */
const MAX_SETTLE_PASSES = 200;

export interface ClusterOptions {
  scenario: Scenario;
  /** Epoch ms of t = 0 (default: now). */
  startTime?: number;
  /** See `SimClockOptions.timeScale`. */
  timeScale: number;
}

export class SimulatedCluster {
  readonly clock: SimClock;
  readonly store: ObjectStore;
  readonly recorder: EventRecorder;
  readonly kubelet: Kubelet;
  readonly nodes: SimNode[];
  readonly startTime: number;
  readonly scenario: Scenario;
  /** Cascading deletion (background, foreground, orphan). */
  readonly garbageCollector: GarbageCollector;
  #deployments: DeploymentController;
  #replicaSets: ReplicaSetController;
  #statefulSets: StatefulSetController;
  #daemonSets: DaemonSetController;
  #settling = false;
  /** Deployments and ReplicaSets (`namespace/name`) whose own or dependents' state changed since their last sync. */
  #dirtyDeployments = new Set<string>();
  #dirtyReplicaSets = new Set<string>();
  /** StatefulSets and DaemonSets (`namespace/name`) to sync, likewise. */
  #dirtyStatefulSets = new Set<string>();
  #dirtyDaemonSets = new Set<string>();

  constructor(options: ClusterOptions) {
    const { scenario } = options;
    this.scenario = scenario;
    this.startTime = options.startTime ?? Date.now();
    const offsets = [
      0,
      ...scenario.objects.flatMap((entry) => [entry.at ?? 0, ...entry.changes.map((change) => change.at)]),
      ...[...scenario.deployments, ...scenario.workloads].flatMap((entry) => [
        entry.at ?? 0,
        ...entry.changes.map((change) => change.at),
      ]),
    ];
    const historyStart = this.startTime + Math.min(...offsets) - 60_000;
    this.clock = new SimClock({ start: historyStart, timeScale: options.timeScale });
    this.store = new ObjectStore(this.clock);
    this.garbageCollector = new GarbageCollector(this.store);
    this.recorder = new EventRecorder(this.clock, this.store);
    this.nodes = Array.from({ length: scenario.nodes }, (_, index) => ({
      name: index === 0 ? 'sim-worker' : `sim-worker${index + 1}`,
      internalIP: `172.18.0.${index + 2}`,
    }));
    this.kubelet = new Kubelet(
      this.store,
      this.clock,
      this.recorder,
      this.nodes,
      fateResolver(scenario.fates, this.startTime, {
        now: () => this.clock.now(),
        available: (ref, namespace) => workloadAvailable(this.store, ref, namespace),
      }),
    );
    this.#watchFateConditions();
    this.#deployments = new DeploymentController(this.store, this.clock, this.recorder);
    this.#replicaSets = new ReplicaSetController(this.store, this.clock, this.recorder);
    this.#statefulSets = new StatefulSetController(this.store, this.clock, this.recorder);
    this.#daemonSets = new DaemonSetController(this.store, this.clock, this.recorder);
    this.clock.onStep(() => this.#settleControllers());
    this.store.subscribe((change) => this.#markDirty(change.storage, change.object));

    for (const node of this.nodes) this.store.create('nodes', nodeObject(node, this.clock.timestamp()));
    for (const namespace of scenario.namespaces)
      this.createObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    for (const entry of scenario.objects) {
      this.clock.schedule(this.startTime + (entry.at ?? Math.min(...offsets)), () =>
        this.createObject(entry.manifest as KubeObject),
      );
      for (const change of entry.changes) {
        this.clock.schedule(this.startTime + change.at, () =>
          this.#applyChange(entry.manifest as KubeObject, change.patch, undefined),
        );
      }
    }
    for (const entry of [...scenario.deployments, ...scenario.workloads]) {
      const manifest = entry.manifest as unknown as KubeObject;
      this.clock.schedule(this.startTime + (entry.at ?? Math.min(...offsets)), () =>
        this.createObject(manifest),
      );
      for (const change of entry.changes) {
        this.clock.schedule(this.startTime + change.at, () =>
          this.#applyChange(manifest, change.patch, change.changeCause),
        );
      }
    }
    // Replay the history: the incident is in progress at t = 0.
    this.clock.runUntil(this.startTime);
    this.#settleControllers();
    // GitOps reconcilers hold the template live at t = 0 as their desired state.
    for (const { namespace, deployment, fieldManager, afterSeconds } of scenario.reconcilers) {
      new TemplateReconciler(this.store, this.clock, {
        namespace,
        name: deployment,
        fieldManager,
        afterSeconds,
      }).start();
    }
  }

  /**
   * Fate rules with `when` are re-evaluated when what they read changes: at each rule's `after`
   * time, and after any workload's availability flips (once per instant, after the change settles).
   */
  #watchFateConditions(): void {
    const rules = this.scenario.fates.filter((rule) => rule.when !== undefined);
    if (rules.length === 0) return;
    for (const rule of rules) {
      if (rule.when?.after !== undefined)
        this.clock.schedule(this.startTime + rule.when.after, () => this.kubelet.refate());
    }
    let due = false;
    this.store.subscribe((change) => {
      if (due || !availabilityFlipped(change)) return;
      due = true;
      this.clock.schedule(this.clock.now(), () => {
        due = false;
        this.kubelet.refate();
      });
    });
  }

  /** Creates a scenario object with API defaults (history replay; not an API request). */
  createObject(manifest: KubeObject): KubeObject {
    const type = resourceTypeForKind(manifest.kind ?? '');
    if (!type) throw new Error(`scenario object kind ${manifest.kind} is not served by the simulator`);
    const object = structuredClone(manifest);
    if (type.namespaced) object.metadata.namespace ??= 'default';
    applyDefaults(type.storage, object);
    return this.store.create(type.storage, object);
  }

  /** A scenario change to a Deployment, StatefulSet, DaemonSet or other object: a strategic merge patch. */
  #applyChange(manifest: KubeObject, patch: Record<string, unknown>, changeCause: string | undefined): void {
    const storage = resourceTypeForKind(manifest.kind ?? '')!.storage;
    const namespace = manifest.metadata.namespace ?? 'default';
    const current = this.store.get(storage, namespace, manifest.metadata.name);
    if (!current) return;
    const next = applyPatch(current, patch, 'application/strategic-merge-patch+json') as KubeObject;
    if (changeCause)
      next.metadata.annotations = { ...next.metadata.annotations, 'kubernetes.io/change-cause': changeCause };
    applyDefaults(storage, next);
    this.store.update(storage, next);
  }

  /**
   * Brings the simulation up to date: catches up with wall time (real-time mode), fires due
   * timers and runs the controllers until nothing changes. Call after every API write and before
   * every read.
   */
  reconcile(): void {
    if (this.#settling) return;
    this.clock.sync();
    this.clock.runUntil(this.clock.now());
    this.#settleControllers();
    this.clock.runUntil(this.clock.now());
  }

  /** Work queues, as the controllers' informers fill them: an object, its owner, its owner's owner. */
  #markDirty(storage: string, object: KubeObject): void {
    const namespace = object.metadata.namespace ?? '';
    if (storage === 'deployments') this.#dirtyDeployments.add(`${namespace}/${object.metadata.name}`);
    if (storage === 'replicasets') this.#dirtyReplicaSets.add(`${namespace}/${object.metadata.name}`);
    if (storage === 'statefulsets') this.#dirtyStatefulSets.add(`${namespace}/${object.metadata.name}`);
    if (storage === 'daemonsets') this.#dirtyDaemonSets.add(`${namespace}/${object.metadata.name}`);
    if (storage === 'nodes')
      for (const ds of this.store.peek('daemonsets'))
        this.#dirtyDaemonSets.add(`${ds.metadata.namespace}/${ds.metadata.name}`);
    if (storage === 'pods' || storage === 'controllerrevisions') {
      const owner = controllerOf(object);
      if (owner?.kind === 'StatefulSet') this.#dirtyStatefulSets.add(`${namespace}/${owner.name}`);
      if (owner?.kind === 'DaemonSet') this.#dirtyDaemonSets.add(`${namespace}/${owner.name}`);
    }
    if (storage === 'pods' || storage === 'replicasets') {
      const owner = controllerOf(object);
      if (owner?.kind === 'ReplicaSet') {
        this.#dirtyReplicaSets.add(`${namespace}/${owner.name}`);
        const rs = this.store.peekOne('replicasets', namespace, owner.name);
        const deployment = rs && controllerOf(rs);
        if (deployment?.kind === 'Deployment') this.#dirtyDeployments.add(`${namespace}/${deployment.name}`);
      } else if (owner?.kind === 'Deployment') {
        this.#dirtyDeployments.add(`${namespace}/${owner.name}`);
      }
    }
  }

  #settleControllers(): void {
    if (this.#settling) return;
    this.#settling = true;
    try {
      for (let pass = 0; pass < MAX_SETTLE_PASSES; pass++) {
        if (
          this.#dirtyDeployments.size === 0 &&
          this.#dirtyReplicaSets.size === 0 &&
          this.#dirtyStatefulSets.size === 0 &&
          this.#dirtyDaemonSets.size === 0 &&
          !this.garbageCollector.pending
        )
          return;
        this.garbageCollector.sync();
        const deployments = [...this.#dirtyDeployments];
        this.#dirtyDeployments.clear();
        for (const id of deployments) {
          const [namespace, name] = id.split('/') as [string, string];
          this.#deployments.sync(namespace, name);
        }
        const replicaSets = [...this.#dirtyReplicaSets];
        this.#dirtyReplicaSets.clear();
        for (const id of replicaSets) {
          const [namespace, name] = id.split('/') as [string, string];
          const rs = this.store.peekOne<ReplicaSet>('replicasets', namespace, name);
          if (rs && !rs.metadata.deletionTimestamp) this.#replicaSets.sync(rs);
        }
        for (const [dirty, controller] of [
          [this.#dirtyStatefulSets, this.#statefulSets],
          [this.#dirtyDaemonSets, this.#daemonSets],
        ] as const) {
          const ids = [...dirty];
          dirty.clear();
          for (const id of ids) {
            const [namespace, name] = id.split('/') as [string, string];
            controller.sync(namespace, name);
          }
        }
      }
    } finally {
      this.#settling = false;
    }
  }
}

function nodeObject(node: SimNode, now: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      creationTimestamp: now,
      labels: {
        'kubernetes.io/hostname': node.name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
      },
    },
    spec: { podCIDR: '10.244.0.0/24' },
    status: {
      capacity: { cpu: '4', memory: '16384Mi', pods: '110' },
      allocatable: { cpu: '4', memory: '16384Mi', pods: '110' },
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        },
      ],
      addresses: [
        { type: 'InternalIP', address: node.internalIP },
        { type: 'Hostname', address: node.name },
      ],
      nodeInfo: {
        kubeletVersion: SIMULATED_VERSION.gitVersion,
        containerRuntimeVersion: 'containerd://1.7.24',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        architecture: 'amd64',
        operatingSystem: 'linux',
      },
    },
  };
}
