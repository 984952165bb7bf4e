/**
 * Whether the approved state holds: after the rollout completes, the Deployment's Pod template is
 * compared with the approved one over a settle window, so a controller that re-applies the old
 * template (Argo CD, Flux, Helm, a person with kubectl) is caught instead of reported as success.
 * Pure functions over `get_deployment` outputs; the loop lives in investigate.ts.
 */
import { z } from 'zod';

/** The parts of `get_deployment` that describe the Pod template and who wrote it. */
export const TemplateViewSchema = z.object({
  containers: z.array(z.unknown()),
  init_containers: z.array(z.unknown()).default([]),
  template_managers: z
    .array(z.object({ manager: z.string(), operation: z.string(), time: z.string().nullable() }))
    .default([]),
});
export type TemplateView = z.infer<typeof TemplateViewSchema>;

/** Sentinel's own field manager (tools/remediate/attribution.ts): its writes are the approved change. */
export const OWN_FIELD_MANAGER = 'sentinel';

/** A change of the approved template: who made it and when (as managedFields record it). */
export interface Revert {
  manager: string;
  time: string | null;
  /** e.g. `image registry/checkout:2.4.0 → registry/checkout:2.4.1` (first differing container). */
  change: string;
}

/**
 * The revert of `approved` seen in `now`, or undefined when the template is unchanged. The manager
 * is the newest template writer other than Sentinel (`unknown` when managedFields name none).
 */
export function findRevert(approved: TemplateView, now: TemplateView): Revert | undefined {
  const same =
    JSON.stringify([approved.containers, approved.init_containers]) ===
    JSON.stringify([now.containers, now.init_containers]);
  if (same) return undefined;
  const writer = now.template_managers.find((entry) => entry.manager !== OWN_FIELD_MANAGER);
  return {
    manager: writer?.manager ?? 'unknown',
    time: writer?.time ?? null,
    change: describeChange(approved, now),
  };
}

function describeChange(approved: TemplateView, now: TemplateView): string {
  const image = (c: unknown) => (c as { name?: string; image?: string } | undefined)?.image;
  const name = (c: unknown) => (c as { name?: string } | undefined)?.name ?? '?';
  for (let i = 0; i < Math.max(approved.containers.length, now.containers.length); i++) {
    const before = approved.containers[i];
    const after = now.containers[i];
    if (JSON.stringify(before) === JSON.stringify(after)) continue;
    if (image(before) !== image(after))
      return `container ${name(after ?? before)} image ${image(before) ?? '(none)'} → ${image(after) ?? '(none)'}`;
    return `container ${name(after ?? before)} spec changed`;
  }
  return 'init containers changed';
}

/** "reverted by argocd-application-controller at 2026-12-02T01:40:00.000Z (container …)". */
export function revertLine(revert: Revert): string {
  return `reverted by ${revert.manager} at ${revert.time ?? 'an unknown time'} (${revert.change})`;
}
