/**
 * Renders a pending call as the one question the human answers, e.g. "Roll back Deployment
 * shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?".
 *
 * The project's shared renderer (approver surfaces) will replace `defaultCallRenderer`; everything
 * here goes through the `PendingCallRenderer` interface so the swap touches one line.
 */
import type { PendingCall } from './pending.ts';
import type { PreviewLike } from './server-grants.ts';

export interface PendingCallRenderer {
  /** One sentence ending in "?" that says exactly what the call will do. */
  render(call: PendingCall, preview: PreviewLike | undefined): string;
}

type Args = Record<string, unknown>;

/** Sentences for the remediation tools; anything else is shown with its exact arguments. */
const SENTENCES: Record<string, (target: string, args: Args, effect: Effect) => string> = {
  rollback_deployment: (target, args, { from, to }) => {
    const toRevision = to?.revision ?? args.to_revision;
    const fromPart = from?.revision !== undefined ? ` from ${revision(from)}` : '';
    const toPart =
      toRevision !== undefined
        ? ` to ${revision({ ...to, revision: toRevision })}`
        : ' to its previous revision';
    return `Roll back Deployment ${target}${fromPart}${toPart}`;
  },
  restart_service: (target) =>
    `Restart the Pods of ${target} (rolling restart, like \`kubectl rollout restart\`)`,
  scale_deployment: (target, args, { from }) =>
    `Scale Deployment ${target}${from?.replicas !== undefined ? ` from ${String(from.replicas)}` : ''} to ${String(args.replicas)} replicas`,
  pause_rollout: (target) => `Pause the rollout of Deployment ${target}`,
  resume_rollout: (target) => `Resume the rollout of Deployment ${target}`,
};

/** The from/to side of a preview's effect, when the preview's structured content reports one. */
interface EffectSide {
  revision?: unknown;
  images?: unknown;
  replicas?: unknown;
}
interface Effect {
  from?: EffectSide | undefined;
  to?: EffectSide | undefined;
}

export const defaultCallRenderer: PendingCallRenderer = {
  render(call, preview) {
    const args = call.arguments;
    const sentence = args && SENTENCES[call.toolName];
    if (!args || !sentence) return `Run ${call.toolName} with ${call.rawArguments || '{}'}?`;
    const target =
      [args.namespace, args.name].filter((part) => typeof part === 'string').join('/') || '(unnamed)';
    return `${sentence(target, args, effectOf(preview))}?`;
  },
};

function effectOf(preview: PreviewLike | undefined): Effect {
  const structured = preview?.structured ?? {};
  const side = (value: unknown) => (value && typeof value === 'object' ? (value as EffectSide) : undefined);
  return { from: side(structured.from), to: side(structured.to) };
}

/** "revision 7 (checkout:2.4.1)": the revision and its images, registry and path left out. */
function revision(side: EffectSide): string {
  const images = Array.isArray(side.images) ? side.images.map(shortImage).filter(Boolean) : [];
  return `revision ${String(side.revision)}${images.length ? ` (${images.join(', ')})` : ''}`;
}

/** `registry.example/shop/checkout:2.4.1` → `checkout:2.4.1`; accepts `{image}` objects too. */
function shortImage(image: unknown): string {
  const ref = typeof image === 'string' ? image : (image as { image?: unknown } | null)?.image;
  return typeof ref === 'string' ? ref.slice(ref.lastIndexOf('/') + 1) : '';
}
