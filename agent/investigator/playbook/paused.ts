/** Paused rollout: refused — the rollout is held on purpose (`kubectl rollout undo` refuses too). */
import { decision, type FailureClass } from './context.ts';

export const paused: FailureClass = (a) => {
  if (!a.deployment?.paused) return undefined;
  a.evidence.add(a.suspect.deployment!.source, `${a.ref} is paused (spec.paused: true)`);
  return decision(
    a,
    'refused',
    `${a.what}, and its rollout is paused.`,
    `The Deployment is paused: someone stopped its rollout on purpose. Sentinel does not roll back a paused Deployment (kubectl rollout undo refuses too) and will not resume it on its own; resuming or rolling back is a human's decision — resume_rollout, then investigate again.`,
    { refusal: 'deployment-paused' },
  );
};
