/**
 * Shows a pending call to the human as one question plus the facts to judge it, with the project's
 * shared renderer (server/render): the question is the dry run's own summary ("Roll back Deployment
 * shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?") — the same
 * sentence the approvals page and CLI show for the request — or, without a preview, the call's
 * arguments in words; then the cluster, the previewed changes and the warnings. Everything shown is
 * redacted and single-line.
 */
import {
  describeClientRef,
  type ClientRef,
  approvalSentence,
  type ApprovalRequest,
  describeChange,
  describeToolCall,
  describeWarning,
  formatArguments,
} from '../../server/index.ts';
import { bound, moreLine, oneLine, redact } from '../../tools/index.ts';
import type { PendingCall } from './pending.ts';
import type { PreviewLike } from './server-grants.ts';

/** A pending call as the human sees it. */
export interface RenderedCall {
  /** One sentence ending in "?" that says exactly what the call will do. */
  question: string;
  /** Lines under the question: cluster, changes, warnings (or the preview's text). */
  details: string[];
}

export interface PendingCallRenderer {
  render(call: PendingCall, preview: PreviewLike | undefined): RenderedCall;
}

/** Changes, warnings or preview lines listed before "… N more". */
const MAX_ITEMS = 30;
/** Longest line shown, in characters. */
const MAX_LINE = 400;

export const defaultCallRenderer: PendingCallRenderer = {
  render(call, preview) {
    if (!call.arguments) {
      const raw = oneLine(redact(call.rawArguments).value, MAX_LINE);
      return {
        question: `Run ${call.toolName} with arguments that are not a JSON object (${raw})?`,
        details: [],
      };
    }
    const summarized = previewSummary(preview);
    const sentence = summarized
      ? approvalSentence({ tool: call.toolName, arguments: call.arguments, preview: summarized })
      : describeToolCall(call.toolName, call.arguments);
    return { question: `${sentence.replace(/[.?]$/, '')}?`, details: preview ? details(preview) : [] };
  },
};

/**
 * The dry run's one-line summary (`structuredContent.summary`) as an approval request's preview, for
 * the server's sentences about a call (`approvalSentence`, `confirmationFor`); null without one.
 */
export function previewSummary(preview: PreviewLike | undefined): ApprovalRequest['preview'] {
  const summary = preview?.structured?.summary;
  return typeof summary === 'string' ? { summary, changes: [], warnings: [], effect: null, text: '' } : null;
}

/**
 * The lines every approval prompt ends with, whatever the renderer: the tool and its arguments — as
 * the server resolved them when the dry run says (`resolved_arguments`: a default target made
 * concrete), else as the model sent them — and the harness tool call being answered.
 */
export function callFacts(call: PendingCall, preview: PreviewLike | undefined, ref?: ClientRef): string[] {
  const resolved = preview?.structured?.resolved_arguments;
  const resolvedArgs =
    typeof resolved === 'object' && resolved !== null && !Array.isArray(resolved)
      ? (resolved as Record<string, unknown>)
      : undefined;
  const args = resolvedArgs ?? call.arguments;
  const shown = args ? formatArguments(args) : oneLine(redact(call.rawArguments).value, MAX_LINE);
  const how = resolvedArgs ? 'as the Sentinel server resolved it' : 'as the model sent it';
  const lines = [oneLine(`Tool: ${call.toolName} ${shown} (${how})`, MAX_LINE)];
  if (ref) lines.push(oneLine(`Harness: ${describeClientRef(ref)}`, MAX_LINE));
  return lines;
}

/** The remediation tools' preview fields (`RemediationOutput`), else the preview's own text. */
function details({ text, structured = {} }: PreviewLike): string[] {
  const lines: string[] = [];
  const cluster = structured.cluster as { context?: unknown; server?: unknown } | undefined;
  if (typeof cluster?.context === 'string' && typeof cluster.server === 'string') {
    lines.push(oneLine(`Cluster: context ${cluster.context}, API server ${cluster.server}`, MAX_LINE));
  }
  const changes = Array.isArray(structured.changes) ? structured.changes : undefined;
  const warnings = Array.isArray(structured.warnings) ? structured.warnings : [];
  if (changes === undefined) {
    return [
      ...lines,
      ...listed(
        text.split('\n').filter((line) => line.trim() !== ''),
        (line) => oneLine(redact(String(line)).value, MAX_LINE),
        'lines',
      ),
    ];
  }
  if (changes.length > 0) lines.push('Changes:', ...listed(changes, describeChange, 'changes', '  - '));
  if (warnings.length > 0) lines.push('Warnings:', ...listed(warnings, describeWarning, 'warnings', '  - '));
  return lines;
}

function listed(
  items: readonly unknown[],
  describe: (item: unknown) => string,
  noun: string,
  prefix = '',
): string[] {
  const { shown, omitted } = bound(items, MAX_ITEMS);
  const lines = shown.map((item) => `${prefix}${describe(item)}`);
  if (omitted > 0) lines.push(`${prefix}${moreLine(omitted, noun)}`);
  return lines;
}
