/**
 * The Deployment controller, ported from k8s.io/kubernetes/pkg/controller/deployment (sync.go,
 * rolling.go, recreate.go, progress.go) for the behaviour a rollout and a rollback depend on:
 *
 * - the new ReplicaSet is the oldest one whose template equals the Deployment's (ignoring
 *   pod-template-hash); if none, one is created named `<deployment>-<hash>` with the hash label
 *   and selector, a controller owner reference and the next revision;
 * - an existing ReplicaSet that becomes the new one again (a rollback) is renumbered to the next
 *   revision, with the old number kept in `deployment.kubernetes.io/revision-history`;
 * - rolling updates honour maxSurge/maxUnavailable and Pod availability; Recreate scales old to 0
 *   first; paused Deployments only scale; `revisionHistoryLimit` prunes old empty ReplicaSets;
 * - status and the Available/Progressing conditions as `calculateStatus` and `syncRolloutStatus`
 *   compute them, including ProgressDeadlineExceeded after `progressDeadlineSeconds` without
 *   progress and its reset when a new ReplicaSet is created.
 *
 * Not modelled: proportional scaling of several active ReplicaSets when `spec.replicas` changes
 * mid-rollout (the rolling-update arithmetic converges to the same end state), and adoption of
 * orphaned ReplicaSets.
 */
import type { Condition, Deployment, Pod, ReplicaSet } from '../types.ts';
import {
  ANNOTATIONS_TO_SKIP,
  DESIRED_REPLICAS_ANNOTATION,
  findActiveOrLatest,
  MAX_REPLICAS_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  actualReplicaCount,
  availableReplicaCount,
  byCreation,
  byRevision,
  controllerOf,
  equalIgnoreHash,
  getCondition,
  isControlledBy,
  maxSurge,
  maxUnavailable,
  newCondition,
  readyReplicaCount,
  removeCondition,
  replicaCount,
  revisionOf,
  setCondition,
  specReplicas,
} from './deployment-util.ts';
import { computePodTemplateHash } from './pod-template-hash.ts';
import { WorkloadController, controllerRef } from './workload-controller.ts';

const SOURCE = { component: 'deployment-controller' };

type DeploymentStatus = NonNullable<Deployment['status']>;

export class DeploymentController extends WorkloadController {
  /** `syncDeployment`. */
  sync(namespace: string, name: string): void {
    let deployment = this.store.get<Deployment>('deployments', namespace, name);
    if (!deployment) return;
    const replicaSets = this.#owned(deployment);
    if (deployment.metadata.deletionTimestamp) {
      // `syncStatusOnly`: a Deployment being deleted (foreground) neither rolls out nor scales.
      const { newRS } = this.#getAllReplicaSetsAndSyncRevision(deployment, replicaSets, false);
      this.#syncDeploymentStatus(deployment, replicaSets, newRS);
      return;
    }
    deployment = this.#checkPausedConditions(deployment);
    if (deployment.spec.paused) {
      this.#syncPaused(deployment, replicaSets);
      return;
    }
    if (deployment.spec.strategy?.type === 'Recreate') {
      this.#rolloutRecreate(deployment, replicaSets);
      return;
    }
    this.#rolloutRolling(deployment, replicaSets);
  }

  #now(): string {
    return this.clock.timestamp();
  }

  /** `checkPausedConditions`: Progressing Unknown DeploymentPaused / DeploymentResumed. */
  #checkPausedConditions(deployment: Deployment): Deployment {
    if (!hasProgressDeadline(deployment)) return deployment;
    const conditions = deployment.status?.conditions ?? [];
    const progressing = getCondition(conditions, 'Progressing');
    if (progressing?.reason === 'ProgressDeadlineExceeded') return deployment;
    const pausedReason = progressing?.reason === 'DeploymentPaused';
    let condition: Condition | undefined;
    if (deployment.spec.paused && !pausedReason) {
      condition = newCondition(
        'Progressing',
        'Unknown',
        'DeploymentPaused',
        'Deployment is paused',
        this.#now(),
      );
    } else if (!deployment.spec.paused && pausedReason) {
      condition = newCondition(
        'Progressing',
        'Unknown',
        'DeploymentResumed',
        'Deployment is resumed',
        this.#now(),
      );
    }
    if (!condition) return deployment;
    return this.#writeStatus(deployment, {
      ...deployment.status,
      conditions: setCondition(conditions, condition),
    });
  }

  /** `sync` for paused Deployments: scale the active ReplicaSet, prune, update status; no rollout. */
  #syncPaused(deployment: Deployment, replicaSets: ReplicaSet[]): void {
    const {
      newRS,
      oldRSs,
      deployment: synced,
    } = this.#getAllReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    deployment = synced;
    this.#scale(deployment, newRS, oldRSs);
    this.#cleanupDeployment(oldRSs, deployment);
    this.#syncDeploymentStatus(deployment, this.#owned(deployment), newRS && this.#reload(newRS));
  }

  /**
   * `scale`: the only active ReplicaSet — or with none active the new one, else the newest old one
   * (`FindActiveOrLatest`) — takes the Deployment's replicas; when the new ReplicaSet is saturated
   * the old active ones go to zero. (Proportional scaling of several active ones is not modelled.)
   */
  #scale(deployment: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): void {
    const desired = deployment.spec.replicas ?? 1;
    const target = findActiveOrLatest(
      newRS && this.#reload(newRS),
      oldRSs.map((rs) => this.#reload(rs)),
    );
    if (target) {
      if (specReplicas(target) !== desired) this.#scaleReplicaSet(target, desired, deployment);
      return;
    }
    const saturated =
      newRS !== undefined &&
      specReplicas(newRS) === desired &&
      newRS.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION] === String(desired) &&
      (newRS.status?.availableReplicas ?? 0) === desired;
    if (!saturated) return;
    for (const old of oldRSs)
      if (specReplicas(this.#reload(old)) > 0) this.#scaleReplicaSet(old, 0, deployment);
  }

  #rolloutRolling(deployment: Deployment, replicaSets: ReplicaSet[]): void {
    const result = this.#getAllReplicaSetsAndSyncRevision(deployment, replicaSets, true);
    deployment = result.deployment;
    const newRS = result.newRS!;
    const oldRSs = result.oldRSs;
    const all = [newRS, ...oldRSs];

    if (this.#reconcileNewReplicaSet(all, newRS, deployment)) {
      this.#syncRolloutStatus(deployment, this.#owned(deployment), this.#reload(newRS));
      return;
    }
    if (
      this.#reconcileOldReplicaSets(
        all,
        oldRSs.filter((rs) => specReplicas(rs) > 0),
        newRS,
        deployment,
      )
    ) {
      this.#syncRolloutStatus(deployment, this.#owned(deployment), this.#reload(newRS));
      return;
    }
    if (deploymentComplete(deployment, deployment.status ?? {})) this.#cleanupDeployment(oldRSs, deployment);
    this.#syncRolloutStatus(deployment, this.#owned(deployment), this.#reload(newRS));
  }

  /** `rolloutRecreate`: scale old ReplicaSets to zero, wait for their Pods to go, then scale up the new one. */
  #rolloutRecreate(deployment: Deployment, replicaSets: ReplicaSet[]): void {
    const result = this.#getAllReplicaSetsAndSyncRevision(deployment, replicaSets, false);
    deployment = result.deployment;
    let scaledDown = false;
    for (const rs of result.oldRSs) {
      if (specReplicas(rs) > 0) scaledDown = this.#scaleReplicaSet(rs, 0, deployment) || scaledDown;
    }
    // `oldPodsRunning`: old Pods count until they are gone, terminating ones included.
    const oldUids = new Set(result.oldRSs.map((rs) => rs.metadata.uid));
    const oldPodsRunning =
      result.oldRSs.some((rs) => (this.#reload(rs).status?.replicas ?? 0) > 0) ||
      this.store
        .peek<Pod>('pods', deployment.metadata.namespace)
        .some(
          (pod) =>
            oldUids.has(controllerOf(pod)?.uid) &&
            pod.status?.phase !== 'Succeeded' &&
            pod.status?.phase !== 'Failed',
        );
    let newRS = result.newRS;
    if (!scaledDown && !oldPodsRunning) {
      newRS ??= this.#getAllReplicaSetsAndSyncRevision(deployment, this.#owned(deployment), true).newRS;
      if (newRS) this.#scaleReplicaSet(newRS, deployment.spec.replicas ?? 1, deployment);
    }
    if (newRS && deploymentComplete(deployment, deployment.status ?? {}))
      this.#cleanupDeployment(result.oldRSs, deployment);
    this.#syncRolloutStatus(deployment, this.#owned(deployment), newRS && this.#reload(newRS));
  }

  #owned(deployment: Deployment): ReplicaSet[] {
    return this.store
      .peekControlledBy<ReplicaSet>('replicasets', deployment.metadata.uid!)
      .filter(
        (rs) => rs.metadata.namespace === deployment.metadata.namespace && !rs.metadata.deletionTimestamp,
      )
      .map((rs) => structuredClone(rs));
  }

  #reload(rs: ReplicaSet): ReplicaSet {
    return this.store.get<ReplicaSet>('replicasets', rs.metadata.namespace, rs.metadata.name) ?? rs;
  }

  /**
   * `getAllReplicaSetsAndSyncRevision` + `getNewReplicaSet`: finds (or creates) the new ReplicaSet,
   * renumbers it to the next revision when it is an older one coming back, and keeps the
   * Deployment's revision annotation in step.
   */
  #getAllReplicaSetsAndSyncRevision(
    deployment: Deployment,
    replicaSets: ReplicaSet[],
    createIfNotExisted: boolean,
  ): { deployment: Deployment; newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] } {
    const sorted = [...replicaSets].sort(byCreation);
    let newRS = sorted.find((rs) => equalIgnoreHash(rs.spec.template, deployment.spec.template));
    const oldRSs = sorted.filter((rs) => rs !== newRS);
    const maxOldRevision = Math.max(0, ...oldRSs.map(revisionOf));
    const newRevision = String(maxOldRevision + 1);

    if (newRS) {
      const copy = structuredClone(newRS);
      const annotationsChanged = setNewReplicaSetAnnotations(deployment, copy, newRevision, true);
      const minReadyChanged = (copy.spec.minReadySeconds ?? 0) !== (deployment.spec.minReadySeconds ?? 0);
      if (minReadyChanged) copy.spec.minReadySeconds = deployment.spec.minReadySeconds ?? 0;
      if (annotationsChanged || minReadyChanged) newRS = this.store.update('replicasets', copy);
      deployment = this.#setDeploymentRevision(deployment, newRS.metadata.annotations?.[REVISION_ANNOTATION]);
      if (hasProgressDeadline(deployment) && !getCondition(deployment.status?.conditions, 'Progressing')) {
        const condition = newCondition(
          'Progressing',
          'True',
          'FoundNewReplicaSet',
          `Found new replica set "${newRS.metadata.name}"`,
          this.#now(),
        );
        deployment = this.#writeStatus(deployment, {
          ...deployment.status,
          conditions: setCondition(deployment.status?.conditions ?? [], condition),
        });
      }
      return { deployment, newRS, oldRSs };
    }
    if (!createIfNotExisted) return { deployment, newRS: undefined, oldRSs };

    // Create the new ReplicaSet; a name collision with a different template bumps collisionCount.
    let collisionCount = deployment.status?.collisionCount ?? 0;
    for (;;) {
      const hash = computePodTemplateHash(deployment.spec.template, collisionCount);
      const name = `${deployment.metadata.name}-${hash}`;
      const existing = this.store.get<ReplicaSet>('replicasets', deployment.metadata.namespace, name);
      if (existing) {
        if (
          isControlledBy(existing, deployment.metadata.uid) &&
          equalIgnoreHash(existing.spec.template, deployment.spec.template)
        ) {
          return { deployment, newRS: existing, oldRSs };
        }
        collisionCount++;
        deployment = this.#writeStatus(deployment, { ...deployment.status, collisionCount });
        continue;
      }
      const template = structuredClone(deployment.spec.template);
      template.metadata = {
        ...template.metadata,
        labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
      };
      const rs: ReplicaSet = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name,
          namespace: deployment.metadata.namespace,
          labels: { ...deployment.spec.template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
          ownerReferences: [controllerRef(deployment, 'Deployment')],
        },
        spec: {
          replicas: 0,
          minReadySeconds: deployment.spec.minReadySeconds ?? 0,
          selector: {
            ...deployment.spec.selector,
            matchLabels: { ...deployment.spec.selector.matchLabels, [POD_TEMPLATE_HASH_LABEL]: hash },
          },
          template,
        },
        status: { replicas: 0 },
      };
      const replicas = newRSNewReplicas(deployment, [...oldRSs], rs);
      rs.spec.replicas = replicas;
      setNewReplicaSetAnnotations(deployment, rs, newRevision, false);
      setReplicasAnnotations(
        rs,
        deployment.spec.replicas ?? 1,
        (deployment.spec.replicas ?? 1) + maxSurge(deployment),
      );
      const created = this.store.create('replicasets', rs);
      if (replicas > 0) {
        this.recorder.record(
          deployment,
          'Normal',
          'ScalingReplicaSet',
          `Scaled up replica set ${name} from 0 to ${replicas}`,
          SOURCE,
        );
      }
      deployment = this.#setDeploymentRevision(deployment, newRevision);
      if (hasProgressDeadline(deployment)) {
        const condition = newCondition(
          'Progressing',
          'True',
          'NewReplicaSetCreated',
          `Created new replica set "${name}"`,
          this.#now(),
        );
        const conditions = removeCondition(deployment.status?.conditions ?? [], 'Progressing');
        deployment = this.#writeStatus(deployment, {
          ...deployment.status,
          conditions: setCondition(conditions, condition),
        });
      }
      return { deployment, newRS: created, oldRSs };
    }
  }

  #setDeploymentRevision(deployment: Deployment, revision: string | undefined): Deployment {
    if (revision === undefined || deployment.metadata.annotations?.[REVISION_ANNOTATION] === revision)
      return deployment;
    const copy = structuredClone(deployment);
    copy.metadata.annotations = { ...copy.metadata.annotations, [REVISION_ANNOTATION]: revision };
    return this.store.update('deployments', copy);
  }

  /** `reconcileNewReplicaSet`. Returns whether it scaled. */
  #reconcileNewReplicaSet(all: ReplicaSet[], newRS: ReplicaSet, deployment: Deployment): boolean {
    const desired = deployment.spec.replicas ?? 1;
    if (specReplicas(newRS) === desired) return false;
    if (specReplicas(newRS) > desired) return this.#scaleReplicaSet(newRS, desired, deployment);
    return this.#scaleReplicaSet(newRS, newRSNewReplicas(deployment, all, newRS), deployment);
  }

  /** `reconcileOldReplicaSets`: clean up unhealthy old Pods first, then scale down within maxUnavailable. */
  #reconcileOldReplicaSets(
    all: ReplicaSet[],
    oldRSs: ReplicaSet[],
    newRS: ReplicaSet,
    deployment: Deployment,
  ): boolean {
    const oldPodsCount = replicaCount(oldRSs);
    if (oldPodsCount === 0) return false;
    const allPodsCount = replicaCount(all);
    const minAvailable = (deployment.spec.replicas ?? 1) - maxUnavailable(deployment);
    const newRSUnavailable = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = allPodsCount - minAvailable - newRSUnavailable;
    if (maxScaledDown <= 0) return false;

    // cleanupUnhealthyReplicas
    let cleaned = 0;
    const remaining: ReplicaSet[] = [];
    for (const rs of [...oldRSs].sort(byCreation)) {
      const available = rs.status?.availableReplicas ?? 0;
      if (cleaned >= maxScaledDown || specReplicas(rs) === available) {
        remaining.push(rs);
        continue;
      }
      const scaleDown = Math.min(maxScaledDown - cleaned, specReplicas(rs) - available);
      const target = specReplicas(rs) - scaleDown;
      this.#scaleReplicaSet(rs, target, deployment);
      cleaned += scaleDown;
      remaining.push({ ...rs, spec: { ...rs.spec, replicas: target } });
    }

    // scaleDownOldReplicaSetsForRollingUpdate
    const allNow = [newRS, ...remaining];
    const availablePods = availableReplicaCount(allNow);
    let scaledDown = 0;
    if (availablePods > minAvailable) {
      let total = availablePods - minAvailable;
      for (const rs of remaining.sort(byCreation)) {
        if (total <= 0) break;
        if (specReplicas(rs) === 0) continue;
        const scaleDown = Math.min(specReplicas(rs), total);
        this.#scaleReplicaSet(rs, specReplicas(rs) - scaleDown, deployment);
        total -= scaleDown;
        scaledDown += scaleDown;
      }
    }
    return cleaned + scaledDown > 0;
  }

  /** `scaleReplicaSet`: sets replicas and the desired/max annotations; ScalingReplicaSet event. */
  #scaleReplicaSet(rs: ReplicaSet, replicas: number, deployment: Deployment): boolean {
    const current = this.#reload(rs);
    const copy = structuredClone(current);
    const desired = deployment.spec.replicas ?? 1;
    const annotationsChanged = setReplicasAnnotations(copy, desired, desired + maxSurge(deployment));
    const from = specReplicas(current);
    if (from === replicas && !annotationsChanged) return false;
    copy.spec.replicas = replicas;
    this.store.update('replicasets', copy);
    if (from !== replicas) {
      const direction = replicas > from ? 'up' : 'down';
      this.recorder.record(
        deployment,
        'Normal',
        'ScalingReplicaSet',
        `Scaled ${direction} replica set ${rs.metadata.name} from ${from} to ${replicas}`,
        SOURCE,
      );
    }
    return from !== replicas;
  }

  /** `cleanupDeployment`: deletes the oldest empty ReplicaSets beyond `revisionHistoryLimit`. */
  #cleanupDeployment(oldRSs: ReplicaSet[], deployment: Deployment): void {
    const limit = deployment.spec.revisionHistoryLimit ?? 10;
    const cleanable = oldRSs.map((rs) => this.#reload(rs)).filter((rs) => !rs.metadata.deletionTimestamp);
    const excess = cleanable.length - limit;
    if (excess <= 0) return;
    cleanable.sort(byRevision);
    for (const rs of cleanable.slice(0, excess)) {
      if ((rs.status?.replicas ?? 0) !== 0 || specReplicas(rs) !== 0) continue;
      if ((rs.metadata.generation ?? 1) > (rs.status?.observedGeneration ?? 0)) continue;
      this.store.delete('replicasets', rs.metadata.namespace, rs.metadata.name);
    }
  }

  /** `syncDeploymentStatus` (paused and scaling paths): status without progress evaluation. */
  #syncDeploymentStatus(deployment: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): void {
    const current = this.store.get<Deployment>(
      'deployments',
      deployment.metadata.namespace,
      deployment.metadata.name,
    )!;
    this.#writeStatus(current, calculateStatus(all, newRS, current, this.#now()));
  }

  /** `syncRolloutStatus`: status plus the Progressing condition and the deadline re-check. */
  #syncRolloutStatus(deployment: Deployment, all: ReplicaSet[], newRS: ReplicaSet | undefined): void {
    const current = this.store.get<Deployment>(
      'deployments',
      deployment.metadata.namespace,
      deployment.metadata.name,
    )!;
    const now = this.#now();
    const status = calculateStatus(all, newRS, current, now);
    let conditions = status.conditions ?? [];
    const progressing = getCondition(current.status?.conditions, 'Progressing');
    const isCompleteDeployment =
      status.replicas === status.updatedReplicas && progressing?.reason === 'NewReplicaSetAvailable';
    if (hasProgressDeadline(current) && !isCompleteDeployment) {
      const rsName = newRS?.metadata.name;
      if (deploymentComplete(current, status)) {
        const message = rsName
          ? `ReplicaSet "${rsName}" has successfully progressed.`
          : 'Deployment has successfully progressed.';
        conditions = setCondition(
          conditions,
          newCondition('Progressing', 'True', 'NewReplicaSetAvailable', message, now),
        );
      } else if (deploymentProgressing(current, status)) {
        const message = rsName
          ? `ReplicaSet "${rsName}" is progressing.`
          : `Deployment "${current.metadata.name}" is progressing.`;
        const condition = newCondition('Progressing', 'True', 'ReplicaSetUpdated', message, now);
        if (progressing?.status === 'True') condition.lastTransitionTime = progressing.lastTransitionTime!;
        conditions = [...removeCondition(conditions, 'Progressing'), condition];
      } else if (deploymentTimedOut(current, status, this.clock.now())) {
        const message = rsName
          ? `ReplicaSet "${rsName}" has timed out progressing.`
          : `Deployment "${current.metadata.name}" has timed out progressing.`;
        conditions = setCondition(
          conditions,
          newCondition('Progressing', 'False', 'ProgressDeadlineExceeded', message, now),
        );
      }
    }
    const written = this.#writeStatus(current, { ...status, conditions });
    this.#requeueStuckDeployment(written);
  }

  /** `requeueStuckDeployment`: re-check when the progress deadline would pass. */
  #requeueStuckDeployment(deployment: Deployment): void {
    const progressing = getCondition(deployment.status?.conditions, 'Progressing');
    if (!hasProgressDeadline(deployment) || !progressing?.lastUpdateTime) return;
    if (progressing.reason === 'NewReplicaSetAvailable' || progressing.reason === 'ProgressDeadlineExceeded')
      return;
    if (deploymentComplete(deployment, deployment.status ?? {})) return;
    const at =
      Date.parse(progressing.lastUpdateTime) + deployment.spec.progressDeadlineSeconds! * 1000 + 1000;
    const { namespace, name } = deployment.metadata;
    this.resyncAt(deployment, at, () => this.sync(namespace!, name));
  }

  #writeStatus(deployment: Deployment, status: DeploymentStatus): Deployment {
    const copy = structuredClone(deployment);
    copy.status = omitZeroCounts(status);
    return this.store.update('deployments', copy);
  }
}

export function hasProgressDeadline(deployment: Deployment): boolean {
  const seconds = deployment.spec.progressDeadlineSeconds;
  return seconds !== undefined && seconds !== 2147483647;
}

/** `DeploymentComplete`. */
export function deploymentComplete(deployment: Deployment, status: DeploymentStatus): boolean {
  const replicas = deployment.spec.replicas ?? 1;
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (deployment.metadata.generation ?? 1)
  );
}

/** `DeploymentProgressing`: more updated, fewer old, more ready or more available Pods than before. */
function deploymentProgressing(deployment: Deployment, status: DeploymentStatus): boolean {
  const before = deployment.status ?? {};
  const oldBefore = (before.replicas ?? 0) - (before.updatedReplicas ?? 0);
  const oldNow = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (before.updatedReplicas ?? 0) ||
    oldNow < oldBefore ||
    (status.readyReplicas ?? 0) > (before.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (before.availableReplicas ?? 0)
  );
}

/** `DeploymentTimedOut`: no progress for progressDeadlineSeconds since the condition's lastUpdateTime. */
function deploymentTimedOut(deployment: Deployment, status: DeploymentStatus, now: number): boolean {
  const condition = getCondition(status.conditions, 'Progressing');
  if (!hasProgressDeadline(deployment) || !condition) return false;
  if (condition.reason === 'ProgressDeadlineExceeded') return true;
  if (condition.reason === 'NewReplicaSetAvailable') return false;
  return Date.parse(condition.lastUpdateTime!) + deployment.spec.progressDeadlineSeconds! * 1000 < now;
}

/** `calculateStatus`: counts from the ReplicaSets and the Available condition. */
function calculateStatus(
  all: ReplicaSet[],
  newRS: ReplicaSet | undefined,
  deployment: Deployment,
  now: string,
): DeploymentStatus {
  const available = availableReplicaCount(all);
  const replicas = deployment.spec.replicas ?? 1;
  const status: DeploymentStatus = {
    observedGeneration: deployment.metadata.generation ?? 1,
    replicas: actualReplicaCount(all),
    updatedReplicas: newRS ? actualReplicaCount([newRS]) : 0,
    readyReplicas: readyReplicaCount(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, replicaCount(all) - available),
    conditions: structuredClone(deployment.status?.conditions ?? []),
    ...(deployment.status?.collisionCount !== undefined && {
      collisionCount: deployment.status.collisionCount,
    }),
  };
  const condition =
    available >= replicas - maxUnavailable(deployment)
      ? newCondition(
          'Available',
          'True',
          'MinimumReplicasAvailable',
          'Deployment has minimum availability.',
          now,
        )
      : newCondition(
          'Available',
          'False',
          'MinimumReplicasUnavailable',
          'Deployment does not have minimum availability.',
          now,
        );
  status.conditions = setCondition(status.conditions ?? [], condition);
  return status;
}

/** `NewRSNewReplicas` for RollingUpdate: how far the new ReplicaSet may scale up within maxSurge. */
function newRSNewReplicas(deployment: Deployment, all: ReplicaSet[], newRS: ReplicaSet): number {
  const desired = deployment.spec.replicas ?? 1;
  if (deployment.spec.strategy?.type !== 'RollingUpdate') return desired;
  const maxTotal = desired + maxSurge(deployment);
  const current = replicaCount(
    all.some((rs) => rs.metadata.name === newRS.metadata.name) ? all : [...all, newRS],
  );
  if (current >= maxTotal) return specReplicas(newRS);
  const scaleUp = Math.min(maxTotal - current, desired - specReplicas(newRS));
  return specReplicas(newRS) + scaleUp;
}

/**
 * `SetNewReplicaSetAnnotations`: copies the Deployment's annotations and moves the revision forward
 * (never back), recording the replaced number in revision-history. Returns whether anything changed.
 */
function setNewReplicaSetAnnotations(
  deployment: Deployment,
  rs: ReplicaSet,
  newRevision: string,
  exists: boolean,
): boolean {
  const annotations = { ...rs.metadata.annotations };
  const before = JSON.stringify(annotations);
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) {
    if (!ANNOTATIONS_TO_SKIP.has(key)) annotations[key] = value;
  }
  const oldRevision = annotations[REVISION_ANNOTATION];
  const oldNumber = Number.parseInt(oldRevision ?? '', 10);
  if (oldRevision === undefined || !(oldNumber >= Number.parseInt(newRevision, 10))) {
    annotations[REVISION_ANNOTATION] = newRevision;
    if (exists && oldRevision !== undefined && oldRevision !== newRevision) {
      const history = annotations[REVISION_HISTORY_ANNOTATION];
      annotations[REVISION_HISTORY_ANNOTATION] = history ? `${history},${oldRevision}` : oldRevision;
    }
  }
  rs.metadata.annotations = annotations;
  return JSON.stringify(annotations) !== before;
}

/** `SetReplicasAnnotations`. Returns whether they changed. */
function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const annotations = { ...rs.metadata.annotations };
  const changed =
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
  annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
  annotations[MAX_REPLICAS_ANNOTATION] = String(max);
  rs.metadata.annotations = annotations;
  return changed;
}

/** DeploymentStatus counts are `omitempty` in Go: zero values are absent on the wire. */
function omitZeroCounts(status: DeploymentStatus): DeploymentStatus {
  const result: DeploymentStatus = { ...status };
  for (const field of [
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'collisionCount',
  ] as const) {
    if (!result[field]) delete result[field];
  }
  return result;
}
