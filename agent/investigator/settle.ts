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
  /** The live template's digest (as remediation effects compute it); absent from older servers. */
  template_digest: z.string().optional(),
});
export type TemplateView = z.infer<typeof TemplateViewSchema>;

/**
 * The Pod template the approved call's effect recorded — what must hold after it ran. A rollback's
 * effect names the target template's digest (`to_template`) and images (`to_images`); a restart's
 * only its images (`images`: the restart annotation is stamped at execution, so no digest is known
 * in advance). Images as effects write them: `name=image`, init containers `init:name=image`.
 */
export interface ApprovedTemplate {
  digest?: string | undefined;
  images: string[];
}

const EffectSchema = z.object({
  to_template: z.string().optional(),
  to_images: z.array(z.string()).optional(),
  images: z.array(z.string()).optional(),
});

/** The approved template from a remediation's `effect`, or undefined when it records none. */
export function approvedTemplate(effect: unknown): ApprovedTemplate | undefined {
  const parsed = EffectSchema.safeParse(effect);
  if (!parsed.success) return undefined;
  const { to_template, to_images, images } = parsed.data;
  if (to_template !== undefined) return { digest: to_template, images: to_images ?? [] };
  return images ? { images } : undefined;
}

/** `name=image` per container of a `get_deployment` view, init containers first (`init:name=image`). */
function liveImages(view: TemplateView): string[] {
  const pair = (c: unknown) => {
    const { name, image } = (c ?? {}) as { name?: string; image?: string };
    return `${name ?? '?'}=${image ?? ''}`;
  };
  return [...view.init_containers.map((c) => `init:${pair(c)}`), ...view.containers.map(pair)];
}

/**
 * The revert of the approved template seen in `now`, or undefined while it holds: the live
 * template's digest differs from the effect's (`template_digest` vs `to_template`), or its images
 * differ from the effect's. The manager is the newest template writer other than Sentinel.
 */
export function findRevertOfApproved(approved: ApprovedTemplate, now: TemplateView): Revert | undefined {
  const live = liveImages(now);
  const imagesDiffer = approved.images.length > 0 && JSON.stringify(live) !== JSON.stringify(approved.images);
  const digestDiffers =
    approved.digest !== undefined &&
    now.template_digest !== undefined &&
    now.template_digest !== approved.digest;
  if (!imagesDiffer && !digestDiffers) return undefined;
  const writer = now.template_managers.find((entry) => entry.manager !== OWN_FIELD_MANAGER);
  const before = approved.images.find((entry) => !live.includes(entry));
  const after = before && live.find((entry) => entry.split('=')[0] === before.split('=')[0]);
  const container = (entry: string) => {
    const name = entry.split('=')[0]!;
    return name.startsWith('init:') ? `init container ${name.slice(5)}` : `container ${name}`;
  };
  const image = (entry: string | undefined) => entry?.slice(entry.indexOf('=') + 1) || '(none)';
  return {
    manager: writer?.manager ?? 'unknown',
    time: writer?.time ?? null,
    change: before
      ? `${container(before)} image ${image(before)} → ${image(after)}`
      : `pod template differs from the approved one (template digest ${approved.digest} → ${now.template_digest})`,
  };
}

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
