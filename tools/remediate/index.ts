/**
 * The remediation tools — the calls a human approves — and what the approval gate and the approval
 * surfaces use from them: the shared `dry_run`/`reason` arguments, the output shape of a preview and
 * of an execution, the pure `planXxx` functions, and the attribution annotations.
 */
export { rollbackDeployment, planRollback, rollbackAnnotations } from './rollback-deployment.ts';
export { restartService, planRestart, resolveRestartTarget } from './restart-service.ts';
export {
  scaleDeployment,
  planScale,
  parseMaxReplicas,
  MAX_REPLICAS_ENV,
  DEFAULT_MAX_REPLICAS,
} from './scale-deployment.ts';
export { pauseRollout, planPause } from './pause-rollout.ts';
export { deletePod, planDeletePod, recreation } from './delete-pod.ts';
export { planRevisionRollback } from './rollback-revision.ts';
export { resumeRollout, planResume } from './resume-rollout.ts';
export { remediationArgs, DryRunSchema, ReasonSchema, type RemediationArgs } from './args.ts';
export {
  FIELD_MANAGER,
  APPROVAL_REQUEST_ANNOTATION,
  REASON_ANNOTATION,
  ANNOTATION_PREFIX,
  changeCause,
} from './attribution.ts';
export {
  RemediationOutputSchema,
  TargetSchema,
  type RemediationOutput,
  type RemediationPlan,
  type Target,
} from './plan.ts';
export { ChangeSchema, type Change } from './changes.ts';
export { WarningSchema, type Warning } from './warnings.ts';
export { runRemediation } from './run.ts';

import { rollbackDeployment } from './rollback-deployment.ts';
import { restartService } from './restart-service.ts';
import { scaleDeployment } from './scale-deployment.ts';
import { pauseRollout } from './pause-rollout.ts';
import { resumeRollout } from './resume-rollout.ts';
import { deletePod } from './delete-pod.ts';

/** The remediation tools, in the order they are listed to clients. */
export const remediationTools = [
  rollbackDeployment,
  restartService,
  scaleDeployment,
  pauseRollout,
  resumeRollout,
  deletePod,
] as const;
