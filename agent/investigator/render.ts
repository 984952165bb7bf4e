/**
 * How the investigator shows an approval request to the human at the terminal.
 * TODO(issue 7): replace with the shared renderer (`renderApprovalText` in server/render/) once it
 * lands on main, so every surface shows a request the same way.
 */
import type { ApprovalRequest } from '../../server/gate/approval-request.ts';

/** The request's sentence, id, policy reason, changes and warnings, one per line. */
export function renderRequest(request: ApprovalRequest): string {
  const sentence = request.preview?.summary ?? `${request.tool} ${JSON.stringify(request.arguments)}`;
  const lines = [
    sentence,
    `  Request:    ${request.id} (${request.status}, expires ${request.expires_at})`,
    `  Requester:  ${request.requester}`,
    `  Policy:     rule ${request.policy.rule}: ${request.policy.reason}`,
  ];
  const changes = request.preview?.changes ?? [];
  if (changes.length > 0) {
    lines.push('  Changes:', ...changes.map((change) => `    - ${describe(change)}`));
  }
  const warnings = request.preview?.warnings ?? [];
  if (warnings.length > 0) {
    lines.push('  Warnings:', ...warnings.map((warning) => `    - ${describe(warning)}`));
  }
  return lines.join('\n');
}

function describe(item: unknown): string {
  if (typeof item === 'string') return item;
  const fields = (item ?? {}) as { text?: unknown; summary?: unknown; message?: unknown };
  const summary = fields.text ?? fields.summary ?? fields.message;
  return typeof summary === 'string' ? summary : JSON.stringify(item);
}
