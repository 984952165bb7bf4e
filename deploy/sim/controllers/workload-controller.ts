/**
 * What the workload controllers (Deployment, ReplicaSet, StatefulSet, DaemonSet) share: the store
 * they read and write, the simulated clock, the event recorder, and re-syncs scheduled on that clock
 * (the work queue's `AddAfter` in k8s.io/client-go/util/workqueue, deduplicated per object and time
 * as the queue deduplicates keys).
 */
import type { SimClock } from '../clock.ts';
import type { ObjectStore } from '../store.ts';
import type { KubeObject, OwnerReference } from '../types.ts';
import type { EventRecorder } from './events.ts';

export abstract class WorkloadController {
  protected readonly store: ObjectStore;
  protected readonly clock: SimClock;
  protected readonly recorder: EventRecorder;
  /** Re-syncs already scheduled, by `uid@time`, so a busy loop schedules each once. */
  readonly #scheduled = new Set<string>();

  constructor(store: ObjectStore, clock: SimClock, recorder: EventRecorder) {
    this.store = store;
    this.clock = clock;
    this.recorder = recorder;
  }

  /**
   * Runs `resync` when the simulated clock reaches `at` (epoch ms), once per `object` (by uid) and
   * time however often it is asked for; a time in the past runs at the clock's next step.
   */
  protected resyncAt(object: KubeObject, at: number, resync: () => void): void {
    const key = `${object.metadata.uid}@${at}`;
    if (this.#scheduled.has(key)) return;
    this.#scheduled.add(key);
    this.clock.schedule(at, () => {
      this.#scheduled.delete(key);
      resync();
    });
  }
}

/**
 * The owner reference a controller puts on what it creates (`metav1.NewControllerRef`): controller
 * and blockOwnerDeletion true, so the garbage collector deletes the object with its owner.
 */
export function controllerRef(owner: KubeObject, kind: string, apiVersion = 'apps/v1'): OwnerReference {
  return {
    apiVersion,
    kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}
