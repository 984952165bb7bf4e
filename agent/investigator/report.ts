/**
 * The investigation report: summary, culprit, the evidence lines that support the diagnosis (quoted
 * exactly as the tools returned them, with the call that returned each), the action and its
 * verification. Markdown for people, a JSON object with `--json`.
 */
import { sentinelCommand } from '../../core/index.ts';
import { plainPalette, type Palette } from '../colors.ts';
import { z } from 'zod';
import {
  ActionStatusSchema,
  DecisionSchema,
  EvidenceSchema,
  FollowUpSchema,
  ObjectRefSchema,
  VerificationSchema,
  type Investigation,
} from './model.ts';

export const ReportSchema = z.object({
  id: z.string(),
  symptom: z.string(),
  namespace: z.string(),
  status: z.string(),
  /** One or two sentences: what was wrong and what was done. */
  summary: z.string(),
  culprit: ObjectRefSchema.nullable(),
  cause: z.string().nullable(),
  diagnosis: z.string(),
  /** Structured diagnosis facts (`DecisionSchema.facts`). */
  facts: DecisionSchema.shape.facts,
  evidence: z.array(EvidenceSchema),
  action: z.object({
    kind: DecisionSchema.shape.action,
    refusal: z.string().nullable(),
    explanation: z.string(),
    call: z.object({ tool: z.string(), arguments: z.record(z.string(), z.unknown()) }).nullable(),
    preview: z.string().nullable(),
    status: ActionStatusSchema.nullable(),
    approval_request_id: z.string().nullable(),
    decided_by: z.string().nullable(),
    /** Who made (and so executed) the call: the approval request's requester. */
    requested_by: z.string().nullable().default(null),
    decision_reason: z.string().nullable(),
    outcome: z.string().nullable(),
    /** Every warning of the preview the human approved (GitOps, HPA, target revision health). */
    warnings: z.array(z.object({ kind: z.string(), message: z.string() })),
  }),
  /** Changes proposed after the action ran, each with its own approval (the forced rollback's Pod deletion). */
  follow_ups: z.array(FollowUpSchema).optional(),
  verification: VerificationSchema.nullable(),
  pending_approval_ids: z.array(z.string()),
  error: z.string().nullable(),
});
export type Report = z.infer<typeof ReportSchema>;

/** The one-paragraph summary of where the investigation stands. */
function summarize(inv: Investigation): string {
  const { decision, action, verification } = inv;
  if (inv.status === 'failed') return `The investigation failed: ${inv.error ?? 'unknown error'}`;
  if (!decision) return 'The investigation has not reached a diagnosis yet.';
  if (decision.action === 'not_found') return `Not found: ${decision.diagnosis} ${decision.explanation}`;
  if (!action) {
    return decision.action === 'none'
      ? `${decision.diagnosis} No remediation proposed.`
      : `${decision.diagnosis} No remediation: ${decision.explanation}`;
  }
  const proposal = action.preview ?? `${action.tool} ${JSON.stringify(action.arguments)}`;
  switch (action.status) {
    case 'executed': {
      const by = action.decided_by
        ? `, approved by ${action.decided_by} (${action.approval_request_id})${action.requested_by ? ` and executed by ${action.requested_by}` : ''}`
        : '';
      const result = verification
        ? verification.state === 'reverted'
          ? ` Verification: REVERTED — the rollout completed, then the approved template was ${verification.message}; the incident is not resolved.`
          : verification.healthy
            ? ` Verified: the rollout is complete and the ${decision.culprit?.kind ?? 'Deployment'} is healthy (${verification.message}).`
            : ` Verification: not healthy yet — ${verification.state}: ${verification.message}.`
        : '';
      const warned = action.warnings.length
        ? ` Warnings shown before approval: ${action.warnings.map((w) => w.message).join(' ')}`
        : '';
      return `${decision.diagnosis} Done: ${proposal}${by}.${followUpText(inv)}${result}${warned}`;
    }
    case 'declined':
      return `${decision.diagnosis} Proposed: ${proposal}. The human declined it${action.decided_by ? ` (${action.decided_by}: ${asClause(action.decision_reason ?? 'no reason given')})` : `: ${asClause(action.outcome ?? '')}`}. Nothing was changed.`;
    case 'awaiting_approval':
    case 'previewed':
      return `${decision.diagnosis} Proposed: ${proposal}; waiting for approval (${inv.pending_approval_ids.join(', ') || 'not requested yet'}).`;
    case 'failed':
      return `${decision.diagnosis} Proposed: ${proposal}; it did not run: ${asClause(action.outcome ?? 'unknown reason')}.`;
  }
}

/**
 * `text` without its final full stops, to embed a tool's sentence ("… the call was not run.") in a
 * sentence of the report without printing "not run..".
 */
export function asClause(text: string): string {
  return text.trimEnd().replace(/\.+$/, '');
}

/** One sentence per follow-up change: what it was for, what it did, who approved it. */
function followUpText(inv: Investigation): string {
  return inv.follow_ups
    .map((f) => {
      const what = f.preview ?? `${f.tool} ${JSON.stringify(f.arguments)}`;
      const label = f.purpose === 'forced_rollback' ? 'Forced rollback' : f.purpose;
      const by = f.decided_by ? ` after ${f.decided_by} approved it (${f.approval_request_id})` : '';
      return f.status === 'executed'
        ? ` ${label}: ${what}${by}.`
        : ` ${label} proposed: ${what}; ${f.status}${f.outcome ? `: ${f.outcome}` : ''}.`;
    })
    .join('');
}

/** The report of an investigation in its current state. */
export function buildReport(inv: Investigation): Report {
  const { decision, action } = inv;
  return {
    id: inv.id,
    symptom: inv.symptom,
    namespace: inv.namespace,
    status: inv.status,
    summary: summarize(inv),
    culprit: decision?.culprit ?? null,
    cause: decision?.cause ?? null,
    diagnosis: decision?.diagnosis ?? '',
    facts: decision?.facts ?? {},
    evidence: decision?.evidence ?? [],
    action: {
      kind: decision?.action ?? 'none',
      refusal: decision?.refusal ?? null,
      explanation: decision?.explanation ?? '',
      call: decision?.remediation ?? null,
      preview: action?.preview ?? null,
      status: action?.status ?? null,
      approval_request_id: action?.approval_request_id ?? null,
      decided_by: action?.decided_by ?? null,
      requested_by: action?.requested_by ?? null,
      decision_reason: action?.decision_reason ?? null,
      outcome: action?.outcome ?? null,
      warnings: action?.warnings ?? [],
    },
    follow_ups: inv.follow_ups,
    verification: inv.verification,
    pending_approval_ids: inv.pending_approval_ids,
    error: inv.error,
  };
}

/** Markdown that code-quotes a line from the cluster (backticks in it cannot end the quote). */
function quote(line: string): string {
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${longest > 0 ? ' ' : ''}${line}${longest > 0 ? ' ' : ''}${fence}`;
}

/** The report as Markdown for people. */
export function renderMarkdown(report: Report): string {
  const lines = [
    `# Investigation ${report.id}`,
    '',
    `**Symptom:** ${report.symptom} (namespace \`${report.namespace}\`)`,
    '',
    '## Summary',
    '',
    report.summary,
    '',
    '## Culprit',
    '',
    report.culprit
      ? `${report.culprit.kind} \`${report.culprit.namespace}/${report.culprit.name}\`${report.cause ? ` — ${report.cause.replace(/_/g, ' ')}` : ''}`
      : 'None found.',
  ];
  if (report.evidence.length > 0) {
    lines.push('', '## Evidence', '');
    let source = '';
    for (const item of report.evidence) {
      if (item.source !== source) {
        source = item.source;
        lines.push(`- from \`${source}\`:`);
      }
      lines.push(`  - ${quote(item.line)}`);
    }
  }
  lines.push('', '## Action', '');
  const { action } = report;
  if (!action.call) {
    lines.push(
      action.kind === 'refused'
        ? `No remediation (refused: ${action.refusal}). ${action.explanation}`
        : action.kind === 'not_found'
          ? `None: what you asked about was not found. ${action.explanation}`
          : `No remediation. ${action.explanation}`,
    );
  } else {
    lines.push(`Proposed: ${action.preview ?? `\`${action.call.tool}\``}`, '');
    lines.push(`- Why: ${action.explanation}`);
    lines.push(`- Call: \`${action.call.tool} ${JSON.stringify(action.call.arguments)}\``);
    if (action.approval_request_id) lines.push(`- Approval request: \`${action.approval_request_id}\``);
    lines.push(`- Status: ${action.status ?? 'not proposed'}${decidedText(action, (text) => ` (${text})`)}`);
    if (action.outcome) lines.push(`- Outcome: ${action.outcome}`);
    for (const warning of action.warnings) lines.push(`- Warning: ${warning.message}`);
  }
  for (const f of report.follow_ups ?? []) {
    lines.push(
      '',
      `### ${f.purpose === 'forced_rollback' ? 'Forced rollback' : f.purpose}`,
      '',
      `Proposed: ${f.preview ?? `\`${f.tool}\``}`,
      '',
    );
    for (const item of f.evidence) lines.push(`- Why (from \`${item.source}\`): ${quote(item.line)}`);
    lines.push(`- Call: \`${f.tool} ${JSON.stringify(f.arguments)}\``);
    if (f.approval_request_id) lines.push(`- Approval request: \`${f.approval_request_id}\``);
    lines.push(
      `- Status: ${f.status}${f.decided_by ? ` (decided by ${f.decided_by}${f.decision_reason ? `: ${f.decision_reason}` : ''})` : ''}`,
    );
    if (f.outcome) lines.push(`- Outcome: ${f.outcome}`);
    for (const warning of f.warnings) lines.push(`- Warning: ${warning.message}`);
  }
  if (report.verification) {
    const v = report.verification;
    lines.push(
      '',
      '## Verification',
      '',
      `${v.healthy ? 'Healthy' : 'Not healthy'}: rollout ${v.state} — ${v.message} (after ${v.attempts} check(s)).`,
    );
  }
  if (report.pending_approval_ids.length > 0) {
    lines.push(
      '',
      `Waiting for approval: ${report.pending_approval_ids.map((id) => `\`${id}\``).join(', ')}. Resume with \`${sentinelCommand()} investigate --resume ${report.id}\`.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Who decided, in the audit's terms, wrapped by `wrap` (empty when no one decided): an executed call
 * was "approved by alice, executed by investigator" (the approver approves, the requester's retry
 * executes); otherwise "by bob: <reason>" (declined), or "decided by …" while not yet executed.
 */
function decidedText(action: Report['action'], wrap: (text: string) => string): string {
  if (!action.decided_by) return '';
  const reason = action.decision_reason ? `: ${action.decision_reason}` : '';
  if (action.status === 'executed') {
    const executor = action.requested_by ? `, executed by ${action.requested_by}` : '';
    return wrap(`approved by ${action.decided_by}${executor}${reason}`);
  }
  return wrap(`${action.status === 'declined' ? 'by' : 'decided by'} ${action.decided_by}${reason}`);
}

/**
 * The report for a person at a terminal: a few lines — what is wrong, the culprit, the action and
 * its status, the verification — and where the full Markdown report is (`fullReport`, a file
 * path). `✔` marks a resolved incident, `✘` an unresolved one, `•` a line with nothing to judge.
 * `style` colours it for a terminal (agent/colors.ts `palette`); default none. `formatFlags`
 * (default true) says that --format markdown / --json print the report: false for a command that
 * has neither (`sentinel demo`), whose summary must not name flags it lacks.
 */
export function renderSummary(
  report: Report,
  fullReport: string,
  style: Palette = plainPalette,
  formatFlags = true,
): string {
  const { action, verification: v } = report;
  const resolved = report.status === 'done' && (action.kind === 'none' || v?.healthy === true);
  const culprit = report.culprit
    ? `${report.culprit.kind} ${report.culprit.namespace}/${report.culprit.name}${report.cause ? ` (${report.cause.replace(/_/g, ' ')})` : ''}`
    : 'none found';
  const decided = decidedText(action, (text) => (action.status === 'executed' ? `: ${text}` : ` ${text}`));
  const actionLine = action.call
    ? `${action.preview ?? action.call.tool} — ${action.status ? style.status(action.status) : 'not proposed'}${decided}`
    : action.kind === 'refused'
      ? `none (refused: ${action.refusal})`
      : action.kind === 'not_found'
        ? 'none: what you asked about was not found'
        : 'none needed';
  const headline = `${resolved ? '✔' : '✘'} ${report.summary.split('\n')[0]}`;
  const lines = [
    style.paint(['bold', resolved ? 'green' : 'red'], headline),
    `  Culprit:       ${report.culprit ? style.paint('bold', culprit) : culprit}`,
    `  Action:        ${actionLine}`,
    ...(v
      ? [
          `  Verification:  ${style.paint(v.healthy ? 'green' : 'red', v.healthy ? 'healthy' : 'not healthy')} — ${v.state}: ${v.message}`,
        ]
      : []),
    ...(report.pending_approval_ids.length > 0
      ? [
          `  Waiting for:   ${style.status('pending', report.pending_approval_ids.join(', '))} — resume with ${sentinelCommand()} investigate --resume ${report.id}`,
        ]
      : []),
    `  Full report:   ${fullReport} (evidence with the call that returned each line${formatFlags ? '; --format markdown prints it, --json as JSON' : ''})`,
  ];
  return `${lines.join('\n')}\n`;
}
