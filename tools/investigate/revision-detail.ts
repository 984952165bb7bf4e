/**
 * `get_rollout_history` with `revision` (issue 15): one revision's pod template, as `kubectl rollout
 * history <kind>/<name> --revision=N` prints it, and how it differs from the current template (what a
 * rollback to it would change). For Deployments (a ReplicaSet's template) and StatefulSets/DaemonSets
 * (a ControllerRevision's stored template) alike.
 */
import { z } from 'zod';
import { stringify as toYaml } from 'yaml';
import { redactValue } from '../redact.ts';
import { untrustedBlock } from '../format/index.ts';
import { templateWithoutHash, type PodTemplateSpec } from '../kube/index.ts';
import { diffPodTemplates } from '../remediate/changes.ts';
import { ChangeSchema } from '../remediate/changes.ts';

export const RevisionDetailSchema = z.object({
  revision: z.number().int(),
  current: z.boolean(),
  template: z
    .record(z.string(), z.unknown())
    .describe('The pod template of this revision (env values of secret-looking names redacted)'),
  changes_from_current: z
    .array(ChangeSchema)
    .describe(
      'What replacing the current template with this one changes (a rollback to it); empty for the current revision',
    ),
});
export type RevisionDetail = z.infer<typeof RevisionDetailSchema>;

/** The detail of revision `revision` whose template is `template`, against the `current` template. */
export function revisionDetail(
  revision: number,
  template: PodTemplateSpec | undefined,
  current: PodTemplateSpec | undefined,
  isCurrent: boolean,
): RevisionDetail {
  const shown = redactValue(templateWithoutHash(template) ?? {}).value as Record<string, unknown>;
  return {
    revision,
    current: isCurrent,
    template: shown,
    changes_from_current: diffPodTemplates(current, template),
  };
}

/** Text lines: the template as YAML (kubectl's "Pod Template:") and the changes a rollback would make. */
export function revisionDetailLines(ref: string, detail: RevisionDetail): string[] {
  const lines = [
    `${ref} revision ${detail.revision}${detail.current ? ' (current)' : ''} — Pod Template:`,
    untrustedBlock(toYaml(detail.template).trimEnd(), {
      label: `pod template of ${ref} revision ${detail.revision}`,
      maxBytes: 16_384,
    }),
  ];
  if (detail.current) lines.push('This is the current template.');
  else if (detail.changes_from_current.length === 0)
    lines.push('Same as the current template (a rollback to it would be skipped).');
  else {
    lines.push(`Rolling back to revision ${detail.revision} would change:`);
    lines.push(...detail.changes_from_current.map((c) => `  - ${c.text}`));
  }
  return lines;
}
