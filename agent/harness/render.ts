/**
 * Renders a pending call as the one question the human answers, e.g. "Roll back Deployment
 * shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?".
 *
 * The sentence is the dry run's own `summary` (the remediation tools' `RemediationOutput`, which the
 * gate also records as the approval request's preview summary), so the human reads what the tool will
 * do against the cluster as it is now. Without a preview, the call's arguments are put in words.
 * The project's shared renderer (approver surfaces) will replace `defaultCallRenderer` through the
 * `PendingCallRenderer` interface.
 */
import type { PendingCall } from './pending.ts';
import type { PreviewLike } from './server-grants.ts';

export interface PendingCallRenderer {
  /** One sentence ending in "?" that says exactly what the call will do. */
  render(call: PendingCall, preview: PreviewLike | undefined): string;
}

type Args = Record<string, unknown>;

/** The remediation tools' calls in words, for when there is no preview to quote. */
const SENTENCES: Record<string, (target: string, args: Args) => string> = {
  rollback_deployment: (target, args) =>
    `Roll back Deployment ${target} to ${args.to_revision === undefined ? 'its previous revision' : `revision ${String(args.to_revision)}`}`,
  restart_service: (target) => `Restart ${target} (rolling restart, like \`kubectl rollout restart\`)`,
  scale_deployment: (target, args) => `Scale Deployment ${target} to ${String(args.replicas)} replicas`,
  pause_rollout: (target) => `Pause rollouts of Deployment ${target}`,
  resume_rollout: (target) => `Resume rollouts of Deployment ${target}`,
};

export const defaultCallRenderer: PendingCallRenderer = {
  render(call, preview) {
    const summary = preview?.structured?.summary;
    if (typeof summary === 'string' && summary.trim() !== '')
      return `${summary.trim().replace(/[.?]$/, '')}?`;
    const args = call.arguments;
    const sentence = args && SENTENCES[call.toolName];
    if (!args || !sentence) return `Run ${call.toolName} with ${call.rawArguments || '{}'}?`;
    const target =
      [args.namespace, args.name].filter((part) => typeof part === 'string').join('/') || '(unnamed)';
    return `${sentence(target, args)}?`;
  },
};
