/**
 * The exact failure classes of issue 14, as the playbook names them in a decision's
 * `facts.failure` (what a scenario's `expected.facts.failure` checks), each with what it means.
 * One list, so the docs (deploy/sim/README.md's coverage table, README's decision table) and the
 * bundled scenarios can be checked against what the code sets (test/agent/investigator/playbook/failures.test.ts).
 */
import type { Analysis } from './context.ts';

export const FAILURES = {
  oom_killed: 'OOM kill: the container, its memory limit (and the change that lowered it), last usage',
  liveness_probe: 'liveness kill: the kubelet kills the container after failed liveness probes',
  startup_probe: 'startup probe: the container never passes its startup probe within its budget',
  app_exit: 'app exit: the container exits with a non-zero code; its last log line',
  image_not_found: 'image pull: the image or its tag does not exist in the registry',
  pull_unauthorized: 'image pull: the registry refuses the credentials (401/403)',
  missing_pull_secret: 'image pull: a revision removed the image pull secret the registry needs',
  missing_config_key: 'config error: a key of a ConfigMap or Secret the container references is missing',
  missing_config_object: 'config error: a ConfigMap or Secret the container references is missing',
  change_unschedulable: 'Pending: a revision raised requests or changed placement (old → new)',
  unschedulable: 'Pending: no node has room or matches, nothing changed',
  hpa_at_max: 'autoscaler pinned at maxReplicas while the Pods are overloaded',
  hpa_at_min: 'autoscaler stuck at minReplicas (it cannot read its metric) while the Pods are overloaded',
} as const;

export type Failure = keyof typeof FAILURES;

export const FAILURE_IDS = Object.keys(FAILURES) as Failure[];

/** Records `failure` as the decision's `facts.failure`. */
export function noteFailure(a: Analysis, failure: Failure): void {
  a.facts.failure = failure;
}
