/**
 * A GitOps reconciler (Argo CD, Flux, Helm's controller): it records a Deployment's pod template
 * when the simulator starts serving (t = 0) and, whenever the live template drifts from it,
 * re-applies the recorded template `afterSeconds` later under its own field manager — an Update
 * whose managedFields entry names that manager, as a real controller's write does. This is how an
 * approved rollback gets reverted by a controller that still holds the old desired state.
 */
import { isDeepStrictEqual } from 'node:util';
import { recordUpdate } from '../api/apply.ts';
import { definitionNameFor } from '../api/schemas.ts';
import type { SimClock } from '../clock.ts';
import type { ObjectStore } from '../store.ts';
import type { KubeObject } from '../types.ts';

/** One `reconcilers` entry of a scenario. */
export interface ReconcilerSpec {
  namespace: string;
  /** The Deployment it keeps in sync. */
  name: string;
  /** `managedFields[].manager` of its writes, e.g. `argocd-application-controller`. */
  fieldManager: string;
  /** Seconds after a drift it re-applies the recorded template. */
  afterSeconds: number;
}

type WithTemplate = KubeObject & { spec?: { template?: unknown } };

export class TemplateReconciler {
  readonly #store: ObjectStore;
  readonly #clock: SimClock;
  readonly #spec: ReconcilerSpec;
  #recorded: unknown;
  #scheduled = false;

  constructor(store: ObjectStore, clock: SimClock, spec: ReconcilerSpec) {
    this.#store = store;
    this.#clock = clock;
    this.#spec = spec;
  }

  /** Records the live template as the desired state (call at t = 0), then watches for drift. */
  start(): void {
    this.#recorded = structuredClone(this.#live()?.spec?.template);
    this.#store.subscribe((change) => {
      const { metadata } = change.object;
      if (change.storage !== 'deployments' || metadata.namespace !== this.#spec.namespace) return;
      if (metadata.name !== this.#spec.name || this.#scheduled || !this.#drifted()) return;
      this.#scheduled = true;
      this.#clock.schedule(this.#clock.now() + this.#spec.afterSeconds * 1000, () => this.#reapply());
    });
  }

  #live(): WithTemplate | undefined {
    return this.#store.get<WithTemplate>('deployments', this.#spec.namespace, this.#spec.name);
  }

  #drifted(): boolean {
    const live = this.#store.peekOne<WithTemplate>('deployments', this.#spec.namespace, this.#spec.name);
    return this.#recorded !== undefined && !!live && !isDeepStrictEqual(live.spec?.template, this.#recorded);
  }

  #reapply(): void {
    this.#scheduled = false;
    const before = this.#live();
    if (!before || !this.#drifted()) return;
    const after = structuredClone(before);
    after.spec = { ...after.spec, template: structuredClone(this.#recorded) };
    after.metadata.managedFields = recordUpdate({
      definition: definitionNameFor('apps', 'v1', 'Deployment') ?? '',
      before,
      after,
      manager: this.#spec.fieldManager,
      apiVersion: 'apps/v1',
      time: this.#clock.timestamp(),
    });
    this.#store.update('deployments', after);
  }
}
