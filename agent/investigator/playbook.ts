/**
 * The incident playbook: a pure function from the investigation tools' structured outputs to a
 * decision (docs/DESIGN.md, "Local mode"). No I/O, no clock of its own: the same evidence always gives the
 * same decision, which is what makes the local investigator dependable at 3 a.m. and testable.
 *
 * First, what the user asked about must exist: a named Deployment the cluster answers "not found"
 * for, or a namespace with no Deployments, Pods or Warning events (Kubernetes lists an absent
 * namespace as empty), is `not_found` — never "healthy".
 *
 * The suspect Deployment (the one named by the user, else the worst one triage ranks) is analysed
 * once (./playbook/context.ts); then each failure class, in order, applies its evidence rule and
 * decides (one module per class in ./playbook/):
 * 1. Nothing failing → no remediation.
 * 2. `paused` → refused (`deployment-paused`): its rollout is held on purpose.
 * 3. `dependency` → the suspect crashes, unchanged, and its logs or events name a host that is a
 *    Service whose selector selects another workload (Deployment, StatefulSet, DaemonSet) which fails:
 *    that workload is the culprit, decided by the classes below; the victim is named as affected
 *    (`facts.affected`, `facts.service`), untouched.
 * 4. `scheduling` → Pending Pods: a recent revision that raised requests or changed placement is
 *    rolled back (the field named old → new); otherwise refused (`unschedulable`): no capacity to create.
 * 4a. `configKey` → CreateContainerConfigError naming a missing ConfigMap/Secret or key: rolled back when
 *    the newest, recent revision introduced the reference; otherwise refused (`missing-config-key`)
 *    with the fix (create the key).
 * 5. `rollout` → the failing Pods all belong to the newest revision, rolled out within
 *    `RECENT_CHANGE_MS`, failures after it: roll back to the newest revision *demonstrably healthy*
 *    (get_rollout_history's evidence: ready Pods or a clean record, no failed Pod — deleted ones
 *    counted by their events); with none, refused (`no-healthy-revision`).
 * 5'. `noHealthyRevision` → the failing Pods belong to several recent revisions and every revision in
 *    the history failed: refused (`no-healthy-revision`), naming each revision's failures.
 * 5a. `autoscalerAtMax` → overloaded Pods (not ready, unavailable) of a Deployment whose
 *    HorizontalPodAutoscaler is pinned at maxReplicas, no recent rollout: refused (`hpa-at-max`),
 *    naming the HPA, its maximum and the utilisation — never restarted or scaled under the HPA.
 * 5b. `autoscalerAtMin` → overloaded Pods, no recent rollout, and an HPA stuck at minReplicas because it
 *    cannot compute its metric (ScalingActive=False, e.g. a missing CPU request): refused
 *    (`hpa-at-min`), naming the HPA, why and the revision that removed the request.
 * 6. `restart` → Pods of an unchanged template run but fail their readiness probes: restart.
 * 6a. `probeKill` → the kubelet kills the containers (liveness probe fails, or the startup probe never
 *    passes), nothing changed recently: refused (`liveness-no-recent-change`, `startup-no-recent-change`),
 *    naming the probe and its failures (a probe kill after a recent rollout is the rollout class's).
 * 6b. `imagePull` → an image pull with an unchanged template: refused by cause (`missing-pull-secret`,
 *    `pull-unauthorized`, `image-not-found`).
 * 7. `refusal` → otherwise refused, saying why (`oom-no-recent-change`, `crash-no-recent-change`,
 *    `not-fixable`).
 * Each decision carries exact facts (./playbook/facts.ts): memory limit, liveness probe, exit code,
 * pull secret, changed field.
 */
import type { Decision } from './model.ts';
import type { PodView, Triage } from './evidence.ts';
import {
  analyse,
  EvidenceLog,
  type Analysis,
  type FailureClass,
  type Sourced,
  type SuspectEvidence,
  type WorkloadKind,
} from './playbook/context.ts';
import { autoscalerAtMax } from './playbook/autoscaler.ts';
import { autoscalerAtMin } from './playbook/autoscaler-at-min.ts';
import { configKey } from './playbook/config-key.ts';
import { dependencyDecision } from './playbook/dependency.ts';
import { imagePull } from './playbook/image-pull.ts';
import { paused } from './playbook/paused.ts';
import { probeKill } from './playbook/probe-kill.ts';
import { refusal } from './playbook/refusal.ts';
import { restart } from './playbook/restart.ts';
import { rollout } from './playbook/rollout.ts';
import { noHealthyRevision } from './playbook/no-healthy-revision.ts';
import { scheduling } from './playbook/scheduling.ts';

export { CAUSES, podCause, type Cause } from './playbook/causes.ts';
export { FAILURES, FAILURE_IDS, type Failure } from './playbook/failures.ts';
export {
  HEALTHY_SERVICE_MS,
  RECENT_CHANGE_MS,
  telltaleLogLines,
  type Sourced,
  type SuspectEvidence,
  type WorkloadKind,
} from './playbook/context.ts';
export { dependencyNames, namedHosts, serviceBackends, suspectHosts } from './playbook/dependency.ts';

export interface PlaybookInput {
  namespace: string;
  triage?: Sourced<Triage> | undefined;
  /** The suspect to decide on (undefined when triage found nothing unhealthy). */
  suspect?: SuspectEvidence | undefined;
  /** Evidence about workloads behind the Services the suspect's logs or events name as hosts (`serviceBackends`). */
  dependencies?: SuspectEvidence[] | undefined;
  /** Epoch milliseconds "now" (cluster time), for "since N minutes ago". */
  now: number;
}

/** The classes that decide about a failing Deployment, in order; `refusal` always decides. */
export const CLASSES: readonly FailureClass[] = [
  paused,
  scheduling,
  configKey,
  rollout,
  noHealthyRevision,
  autoscalerAtMax,
  autoscalerAtMin,
  restart,
  probeKill,
  imagePull,
  refusal,
];

/** Runs the classes on an analysed, failing Deployment. */
function decideOn(a: Analysis): Decision {
  for (const failureClass of CLASSES) {
    const decision = failureClass(a);
    if (decision) return decision;
  }
  throw new Error('unreachable: the refusal class always decides');
}

/**
 * Decides what to do about the suspect. Pure: reads only `input`. See the module comment for the
 * classes, in order.
 */
export function decide(input: PlaybookInput): Decision {
  const { suspect, now } = input;
  const evidence = new EvidenceLog();
  const none = (diagnosis: string, explanation: string): Decision => ({
    action: 'none',
    refusal: null,
    culprit: null,
    cause: null,
    diagnosis,
    explanation,
    remediation: null,
    evidence: evidence.lines,
    facts: {},
  });
  if (input.triage) {
    const { value, source } = input.triage;
    for (const w of value.workloads.slice(0, 3)) {
      evidence.add(source, `${w.kind} ${w.name}: ${w.summary} — likely cause: ${w.likely_cause}`);
    }
  }
  const empty = input.triage && isEmptyNamespace(input.triage.value);
  const emptyLine = `namespace ${input.namespace}: 0 Deployment(s), 0 Pod(s), 0 Warning event(s)`;
  if (suspect?.missing) {
    evidence.add(suspect.missing.source, suspect.missing.value);
    if (empty) evidence.add(input.triage!.source, emptyLine);
    return {
      ...none(
        `Deployment ${input.namespace}/${suspect.name} does not exist${empty ? `, and namespace ${input.namespace} has no Deployments, Pods or Warning events (it may not exist either)` : ''}.`,
        `Nothing to investigate: check the Deployment name (--deployment) and the namespace (--namespace); \`kubectl get deployments -n ${input.namespace}\` lists what exists.`,
      ),
      action: 'not_found',
    };
  }
  if (!suspect && empty) {
    evidence.add(input.triage!.source, emptyLine);
    return {
      ...none(
        `Namespace ${input.namespace} has no Deployments, Pods or Warning events: it does not exist, or it is empty.`,
        'Nothing to investigate: check the namespace name (--namespace); `kubectl get namespaces` lists what exists.',
      ),
      action: 'not_found',
    };
  }
  if (!suspect) {
    return none(
      `Nothing in namespace ${input.namespace} is unhealthy.`,
      'Triage found no unavailable Deployment, failing Pod or warning that points at a workload; nothing to remediate.',
    );
  }
  const a = analyse(input.namespace, suspect, now, evidence, input.triage?.source);
  if (!a.cause) {
    const deployment = a.deployment;
    return none(
      `${a.ref} is healthy: ${deployment ? `${deployment.replicas.available} of ${deployment.replicas.desired} replicas available` : 'no failing Pods'}.`,
      'No failing Pods and every desired replica is available; nothing to remediate.',
    );
  }
  if (a.deployment?.paused) return paused(a)!;
  return dependencyDecision(a, input.dependencies ?? [], evidence, decideOn) ?? decideOn(a);
}

/** Whether triage saw nothing at all in the namespace (how an absent namespace looks to a list). */
function isEmptyNamespace(triage: Triage): boolean {
  const { deployments, pods, warning_events } = triage.counts;
  return deployments === 0 && pods === 0 && warning_events === 0 && triage.workloads.length === 0;
}

/** A workload triage ranks, as the suspect: its kind and name. */
export interface SuspectRef {
  kind: WorkloadKind;
  name: string;
}

const RANKED_KINDS = new Set<string>(['Deployment', 'StatefulSet', 'DaemonSet']);

/**
 * The suspect workload: the Deployment the user named; else the worst-ranked unhealthy workload
 * (Deployment, StatefulSet or DaemonSet) whose name the symptom mentions (the on-call report says
 * which service hurts; other broken workloads in the namespace may be unrelated); else the worst
 * workload triage ranks.
 */
export function chooseSuspectWorkload(
  triage: Triage | undefined,
  named: string | undefined,
  symptom = '',
): SuspectRef | undefined {
  if (named) return { kind: 'Deployment', name: named };
  const workloads = triage?.workloads.filter((w) => RANKED_KINDS.has(w.kind)) ?? [];
  const words = new Set(symptom.toLowerCase().split(/[^a-z0-9-]+/));
  const mentioned = workloads.find(
    (w) => words.has(w.name) || w.name.split('-').every((part) => words.has(part)),
  );
  const chosen = mentioned ?? workloads[0];
  return chosen && { kind: chosen.kind as WorkloadKind, name: chosen.name };
}

/** The name of `chooseSuspectWorkload`'s choice. */
export function chooseSuspect(
  triage: Triage | undefined,
  named: string | undefined,
  symptom = '',
): string | undefined {
  return chooseSuspectWorkload(triage, named, symptom)?.name;
}

/** Crashed containers worth reading the previous logs of: at most `limit`, one per Pod. */
export function crashedContainers(pods: PodView[], limit = 2): { pod: string; container: string }[] {
  return pods
    .map((pod) => ({
      pod,
      container: pod.containers.find((c) => c.last_termination !== null && c.restarts > 0),
    }))
    .filter(({ container }) => container !== undefined)
    .slice(0, limit)
    .map(({ pod, container }) => ({ pod: pod.name, container: container!.name }));
}
