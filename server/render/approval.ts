/**
 * The one renderer of approval requests, shared by the approvals page, the `sentinel approvals`
 * CLI, webhook notifications, the local investigator and the harness client: what a tired human
 * needs to judge the call — one sentence ("Roll back Deployment shop/checkout from revision 7
 * (checkout:2.4.1) to revision 6 (checkout:2.4.0)"), the previewed changes and warnings, the
 * cluster, the policy reason, the requester and the age.
 *
 * `approvalView` does the work once: every string passes through the project's redactor
 * (tools/redact.ts) and is cleaned of control and invisible characters (tool output and workload
 * names are untrusted). `renderApprovalText` / `renderApprovalLine` (terminal, logs, the model) and
 * `renderApprovalHtml` (the page; every value HTML-escaped) only lay it out.
 */
import escapeHtml from 'escape-html';
import {
  describeClientRef,
  durationMs,
  type ApprovalRequest,
  type ApprovalStatus,
  type GrantValidity,
} from '../gate/approval-request.ts';
import {
  humanDuration,
  oneLine,
  sanitizeText,
  isSecretName,
  REDACTED,
  redact,
  redactValue,
} from '../../tools/light.ts';
import { describeToolCall, formatArguments, MAX_SENTENCE } from './describe-call.ts';
import { describeWindowOffer } from './window.ts';
import { withLocalTimes } from './time.ts';
import { withTimeElements } from './time-html.ts';

/** Longest change, warning or reason line shown, in characters. */
const MAX_LINE = 400;
/** Longest grant coverage shown (rules, predicates, an example call), in characters. */
const MAX_SCOPE = 1500;
/** Most changes and warnings listed before "… N more". */
const MAX_ITEMS = 30;
/** Longest template diff shown, in lines (the tools bound it too). */
const MAX_DIFF_LINES = 400;

export interface RenderOptions {
  /** The clock for ages and "expires in". Default: now. */
  now?: Date;
  /**
   * Terminal styling of the plain-text forms (the CLI passes its palette, agent/colors.ts); each
   * hook gets text already shown and returns it styled. Default: no styling.
   */
  style?: TextStyle;
}

/** Styling hooks for `renderApprovalLine` / `renderApprovalText`; colour is never the only cue. */
export interface TextStyle {
  /** The status word(s), e.g. `pending, expires in 27m`, for `status`. */
  status?(status: string, text: string): string;
  /** The "Warnings:" heading. */
  warning?(text: string): string;
  /** The request's sentence (its first line). */
  heading?(text: string): string;
}

/** An approval request in display form: short, redacted, single-line strings. */
export interface ApprovalView {
  id: string;
  status: ApprovalStatus;
  tool: string;
  risk: ApprovalRequest['risk'];
  /** What the call does, in one sentence (the preview's summary, else built from the arguments). */
  sentence: string;
  /** The resolved call, e.g. `rollback_deployment name=checkout namespace=shop to_revision=6`. */
  call: string;
  /** One line per previewed change (images, env, resources, replicas); secret env values redacted. */
  changes: string[];
  /** One line per preview warning (GitOps or HPA ownership, scaling to 0, ...). */
  warnings: string[];
  /** The requester's evidence: one line each, with the call that returned it. */
  evidence: { line: string; call: string }[];
  /** The pod template change as a unified diff (current → proposed), redacted; null when none. */
  templateDiff: string | null;
  /** The investigation or harness session the requester named (`inv_…`), or null. */
  investigation: string | null;
  /** `context kind-sentinel, API server https://127.0.0.1:6443`, or `no cluster configured`. */
  cluster: string;
  /** Matched policy rule and why a human must look. */
  rule: string;
  policyReason: string;
  /** Who may decide: identity names and `role:<role>` entries. */
  approvers: string;
  /** Longest grant an approver may give: `once` or `a window of 15m`. */
  maxValidity: string;
  requester: string;
  /** The requester's free-text reason, or null. */
  requesterReason: string | null;
  createdAt: string;
  /** kubectl-style age of the request, e.g. `3m20s`. */
  age: string;
  expiresAt: string;
  /** For a pending request, time left (`27m`), or `expired`; null once decided. */
  expiresIn: string | null;
  /** `approved by alice 2m ago (once): looks right`, `denied by bob 1m ago: wrong revision`, or null. */
  decision: string | null;
  /** One line per execution under this request's grant. */
  executions: string[];
  /**
   * What the grant covers and until when, for an approved request (`any scale_deployment call by
   * agent on context kind (…) that matches policy rule staging-window …, until …`); for a pending
   * request whose rule allows a window, what a window would cover; else null.
   */
  grantScope: string | null;
  /** Why a cancelled or superseded request ended (and the request that replaced it), or null. */
  statusReason: string | null;
  /** `answers TrueForge session s1, turn t2, tool call c3 (http://…)`: the harness call it answers, or null. */
  harness: string | null;
  /** For an upstream execution: `approved in the harness UI at …; run on trueforge's trust_upstream_approval`, or null. */
  upstream: string | null;
}

/** A redacted, cleaned, single-line string of at most `max` characters. */
function clean(value: string, max = MAX_LINE): string {
  return oneLine(redact(value).value, max);
}

function short(value: unknown): string {
  if (value === undefined || value === null) return '(none)';
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const firstString = (record: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  for (const key of keys) if (typeof record[key] === 'string' && record[key] !== '') return record[key];
  return undefined;
};

const firstPresent = (record: Record<string, unknown>, keys: readonly string[]): [boolean, unknown] => {
  for (const key of keys) if (key in record) return [true, record[key]];
  return [false, undefined];
};

/**
 * One line for a previewed change. Strings are shown as they are; objects as
 * `<kind> <container> <name>: <from> → <to>` from the fields `kind|type`, `container`,
 * `name|key|field|path|resource` (`key`: the remediation tools' env var, resource or label name),
 * `from|before|old` and `to|after|new`, or their own
 * `summary|description|message`; anything else as JSON. The values of a change whose name looks
 * secret (an env var `DB_PASSWORD`) are replaced by `[REDACTED]`.
 */
export function describeChange(change: unknown): string {
  if (typeof change === 'string') return clean(change);
  if (!isRecord(change)) return clean(short(change));
  const own = firstString(change, ['summary', 'description', 'message']);
  if (own !== undefined) return clean(own);
  const kind = firstString(change, ['kind', 'type']);
  const container = firstString(change, ['container']);
  const name = firstString(change, ['name', 'key', 'field', 'path', 'resource']);
  const [hasFrom, from] = firstPresent(change, ['from', 'before', 'old']);
  const [hasTo, to] = firstPresent(change, ['to', 'after', 'new']);
  if (!hasFrom && !hasTo) return clean(JSON.stringify(redactValue(change).value));
  const secret = name !== undefined && isSecretName(name);
  const shown = (value: unknown) =>
    secret && value !== undefined && value !== null ? REDACTED : short(redactValue(value).value);
  const subject = [kind, container && `container ${container}`, name].filter(Boolean).join(' ');
  return clean(`${subject ? `${subject}: ` : ''}${shown(from)} → ${shown(to)}`);
}

/** One line for a preview warning: a string, `{code?, message}`, or JSON. */
export function describeWarning(warning: unknown): string {
  if (typeof warning === 'string') return clean(warning);
  if (isRecord(warning)) {
    const message = firstString(warning, ['message', 'summary', 'description']);
    const code = firstString(warning, ['code', 'kind', 'type']);
    if (message !== undefined) return clean(code ? `${code}: ${message}` : message);
  }
  return clean(JSON.stringify(redactValue(warning).value));
}

function bounded(items: readonly unknown[], describe: (item: unknown) => string, noun: string): string[] {
  const lines = items.slice(0, MAX_ITEMS).map(describe);
  if (items.length > MAX_ITEMS) lines.push(`… ${items.length - MAX_ITEMS} more ${noun} not shown`);
  return lines;
}

function validityText(validity: GrantValidity): string {
  return validity === 'once' ? 'once' : `a window of ${validity.window}`;
}

/** What the request's call does, in one redacted line: the preview's summary, else a built sentence. */
export function approvalSentence(request: Pick<ApprovalRequest, 'tool' | 'arguments' | 'preview'>): string {
  const summary = request.preview?.summary.trim();
  return summary ? clean(summary, MAX_SENTENCE) : describeToolCall(request.tool, request.arguments);
}

function ago(from: string, now: Date): string {
  return `${humanDuration(now.getTime() - Date.parse(from))} ago`;
}

/** Builds the display form of `request` (see `ApprovalView`). Pure: the request is not modified. */
export function approvalView(request: ApprovalRequest, options: RenderOptions = {}): ApprovalView {
  const now = options.now ?? new Date();
  const { decision, grant } = request;
  const expiresMs = Date.parse(request.expires_at) - now.getTime();
  let decisionText: string | null = null;
  if (decision) {
    const verb = decision.decision === 'allow' ? 'approved' : 'denied';
    const how = decision.decision === 'allow' && grant ? ` (${validityText(grant.validity)})` : '';
    const fallback = decision.admin_fallback ? ' as admin fallback' : '';
    const why = decision.reason ? `: ${decision.reason}` : '';
    decisionText = clean(`${verb} by ${decision.by}${fallback} ${ago(decision.at, now)}${how}${why}`);
  } else if (request.status === 'withdrawn') {
    decisionText = `withdrawn by ${clean(request.requester)}`;
  }
  const policyValidity = request.policy.validity;
  // Read defensively: records from other writers may carry another scope shape.
  const scopeDescription: unknown = (grant?.scope as { description?: unknown } | undefined)?.description;
  const grantScope =
    typeof scopeDescription === 'string'
      ? clean(scopeDescription, MAX_SCOPE)
      : request.status === 'pending' && policyValidity !== 'once'
        ? clean(
            describeWindowOffer(
              {
                tool: request.tool,
                requester: request.requester,
                cluster: request.cluster,
                rules: request.policy.rules,
                coverage: request.policy.window,
              },
              policyValidity.window,
              new Date(now.getTime() + durationMs(policyValidity.window)).toISOString(),
            ),
            MAX_SCOPE,
          )
        : null;
  const statusReason = request.status_reason
    ? clean(
        `${request.status_reason}${request.superseded_by ? ` (replaced by ${request.superseded_by})` : ''}`,
      )
    : null;
  return {
    id: clean(request.id, 80),
    status: request.status,
    tool: clean(request.tool, 80),
    risk: request.risk,
    sentence: approvalSentence(request),
    call: clean(`${request.tool} ${formatArguments(request.arguments)}`.trim()),
    changes: bounded(request.preview?.changes ?? [], describeChange, 'changes'),
    warnings: bounded(request.preview?.warnings ?? [], describeWarning, 'warnings'),
    evidence: (request.preview?.evidence ?? []).slice(0, MAX_ITEMS).map((item) => ({
      line: clean(item.line),
      call: clean(item.call),
    })),
    templateDiff: request.preview?.template_diff ? diffText(request.preview.template_diff) : null,
    investigation: request.preview?.investigation ? clean(request.preview.investigation, 200) : null,
    cluster: request.cluster
      ? clean(`context ${request.cluster.context}, API server ${request.cluster.server}`)
      : 'no cluster configured',
    rule: clean(request.policy.rule, 120),
    policyReason: clean(request.policy.reason),
    approvers: clean(request.policy.approvers.join(', ') || 'admins only'),
    maxValidity: validityText(request.policy.validity),
    requester: clean(request.requester, 80),
    requesterReason: request.reason ? clean(request.reason) : null,
    createdAt: request.created_at,
    age: humanDuration(now.getTime() - Date.parse(request.created_at)),
    expiresAt: request.expires_at,
    expiresIn: request.status === 'pending' ? (expiresMs > 0 ? humanDuration(expiresMs) : 'expired') : null,
    decision: decisionText,
    executions: request.executions.map((execution) =>
      clean(
        `${execution.id} ${execution.status} ${ago(execution.started_at, now)}${execution.outcome ? `: ${execution.outcome}` : ''}`,
      ),
    ),
    grantScope,
    statusReason,
    harness: request.client_ref ? clean(`answers ${describeClientRef(request.client_ref)}`) : null,
    upstream: request.upstream
      ? clean(
          `approved in the harness (verified allow at ${request.upstream.approved_at}); run on ${request.upstream.identity}'s ${request.upstream.trusted_by}, without a Sentinel approver`,
        )
      : null,
  };
}

/**
 * A unified diff as shown: every line through the redactor and cleaned of control and invisible
 * characters (one line stays one line), at most `MAX_DIFF_LINES` lines.
 */
function diffText(diff: string): string {
  const lines = diff.split('\n');
  // Not `clean`: that collapses whitespace, and a diff's indentation is its structure.
  const shown = lines.slice(0, MAX_DIFF_LINES).map((line) => {
    const visible = sanitizeText(redact(line).value);
    return visible.length > MAX_LINE ? `${visible.slice(0, MAX_LINE - 1)}…` : visible;
  });
  if (lines.length > MAX_DIFF_LINES) shown.push(`… ${lines.length - MAX_DIFF_LINES} more lines not shown`);
  return shown.join('\n');
}

/** Status with its timing: `pending, expires in 27m`, `denied`, ... */
function statusText(view: ApprovalView): string {
  if (view.status !== 'pending') return view.status;
  return view.expiresIn === 'expired' ? 'pending, expired' : `pending, expires in ${view.expiresIn}`;
}

/**
 * One line per request for lists: `<id>  <status>  <age>  <requester>  <sentence>`, e.g.
 * `apr_0123456789abcdef  pending  3m  investigator  Roll back Deployment shop/checkout ...`.
 */
export function renderApprovalLine(request: ApprovalRequest, options: RenderOptions = {}): string {
  const view = approvalView(request, options);
  // Padded first: styling adds invisible codes that must not count as width.
  const status = view.status.padEnd(9);
  const styled = options.style?.status?.(view.status, status) ?? status;
  return [view.id, styled, view.age.padEnd(6), view.requester, view.sentence].join('  ');
}

/** Column headers of `renderApprovalTable`, in order (kubectl style: upper case). */
export const APPROVAL_TABLE_HEADERS = [
  'ID',
  'STATUS',
  'TOOL',
  'TARGET',
  'REQUESTER',
  'AGE',
  'ACTION',
] as const;

/** `namespace/name` of the call's object (resolved arguments), `namespace` alone, or `-`. */
function callTarget(request: ApprovalRequest): string {
  const { namespace, name } = request.arguments;
  const ns = typeof namespace === 'string' && namespace !== '' ? clean(namespace, 80) : undefined;
  const object = typeof name === 'string' && name !== '' ? clean(name, 80) : undefined;
  if (ns && object) return `${ns}/${object}`;
  return ns ?? object ?? '-';
}

/**
 * A list of requests as a table with a header row, columns aligned like `kubectl get`:
 *
 *   ID                    STATUS   TOOL              TARGET         REQUESTER     AGE    ACTION
 *   apr_2222222222222222  pending  scale_deployment  shop/checkout  investigator  3m20s  Scale Deployment …
 *
 * Widths count the text as shown (styling is applied after padding, so colour codes do not
 * misalign); the last column is not padded. Empty `requests` gives the header alone.
 */
export function renderApprovalTable(
  requests: readonly ApprovalRequest[],
  options: RenderOptions = {},
): string {
  const rows = requests.map((request) => {
    const view = approvalView(request, options);
    return [view.id, view.status, view.tool, callTarget(request), view.requester, view.age, view.sentence];
  });
  const last = APPROVAL_TABLE_HEADERS.length - 1;
  const widths = APPROVAL_TABLE_HEADERS.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const layout = (cells: readonly string[], styleStatus: boolean) =>
    cells
      .map((cell, column) => {
        if (column === last) return cell;
        const padded = cell.padEnd(widths[column]!);
        return styleStatus && column === 1 ? (options.style?.status?.(cell, padded) ?? padded) : padded;
      })
      .join('  ');
  return [layout(APPROVAL_TABLE_HEADERS, false), ...rows.map((row) => layout(row, true))].join('\n');
}

/**
 * The full plain-text rendering (terminal, notifications' fallback text, the model):
 *
 *   Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)
 *   Request:    apr_0123456789abcdef (pending, expires in 27m)
 *   Cluster:    context kind-sentinel, API server https://127.0.0.1:6443
 *   Requester:  investigator, 3m ago: "checkout returns 502 since 02:10"
 *   Policy:     rule prod-destructive: production changes need a human (approvers: role:approver; at most once)
 *   Warnings:
 *     - ...
 *   Evidence:
 *     - checkout-7f9c-abcde: CrashLoopBackOff, 14 restarts  (list_pods namespace=shop deployment=checkout)
 *   Changes:
 *     - container checkout: image checkout:2.4.1 → checkout:2.4.0
 *   Decision:   denied by alice 1m ago: wrong revision
 *   Grant:      (approved) what the grant covers and until when; (pending, window allowed) what a window would cover
 *   Ended:      (cancelled or superseded) why
 *   Harness:    (harness mode) answers TrueForge session …, turn …, tool call … (url)
 *   From:       (the requester named it) the investigation or harness session, e.g. inv_0123…
 *   Upstream:   (trust_upstream_approval) approved in the harness, verified; run on <identity>'s trust
 *   Call:       rollback_deployment name=checkout namespace=shop to_revision=6
 */
export function renderApprovalText(request: ApprovalRequest, options: RenderOptions = {}): string {
  const view = approvalView(request, options);
  const { style } = options;
  const status = statusText(view);
  const lines = [
    style?.heading?.(view.sentence) ?? view.sentence,
    `Request:    ${view.id} (${style?.status?.(view.status, status) ?? status})`,
    `Cluster:    ${view.cluster}`,
    `Requester:  ${view.requester}, ${view.age} ago${view.requesterReason ? `: "${view.requesterReason}"` : ''}`,
    `Policy:     rule ${view.rule}: ${view.policyReason} (approvers: ${view.approvers}; at most ${view.maxValidity})`,
  ];
  if (view.warnings.length > 0)
    lines.push(style?.warning?.('Warnings:') ?? 'Warnings:', ...view.warnings.map((line) => `  - ${line}`));
  if (view.evidence.length > 0)
    lines.push('Evidence:', ...view.evidence.map((item) => `  - ${item.line}  (${item.call})`));
  if (view.changes.length > 0) lines.push('Changes:', ...view.changes.map((line) => `  - ${line}`));
  if (view.decision) lines.push(`Decision:   ${view.decision}`);
  // The recorded scope says until when in ISO UTC; people read it in their zone (as on the page).
  if (view.grantScope) lines.push(`Grant:      ${withLocalTimes(view.grantScope, options)}`);
  if (view.statusReason) lines.push(`Ended:      ${view.statusReason}`);
  if (view.harness) lines.push(`Harness:    ${view.harness}`);
  if (view.investigation) lines.push(`From:       ${view.investigation}`);
  if (view.upstream) lines.push(`Upstream:   ${view.upstream}`);
  if (view.executions.length > 0) lines.push('Executions:', ...view.executions.map((line) => `  - ${line}`));
  lines.push(`Call:       ${view.call}`);
  return lines.join('\n');
}

/** HTML-escaped, with control, bidi and invisible characters made visible (`sanitizeText`). */
const e = (value: string): string => escapeHtml(sanitizeText(value));

function htmlList(className: string, title: string, items: readonly string[]): string {
  if (items.length === 0) return '';
  return `<h4>${e(title)}</h4><ul class="${className}">${items.map((item) => `<li>${e(item)}</li>`).join('')}</ul>`;
}

/** The warnings, first and prominent: a labelled region the approver reads before anything else. */
function warningsHtml(id: string, warnings: readonly string[]): string {
  if (warnings.length === 0) return '';
  return [
    `<section class="warnings" aria-labelledby="warnings-${id}">`,
    `<h4 id="warnings-${id}"><span aria-hidden="true">⚠ </span>Warnings: read before deciding</h4>`,
    `<ul>${warnings.map((item) => `<li>${e(item)}</li>`).join('')}</ul>`,
    '</section>',
  ].join('');
}

/** The requester's evidence: each line with the call that returned it. */
function evidenceHtml(evidence: ApprovalView['evidence']): string {
  if (evidence.length === 0) return '';
  const items = evidence
    .map(
      (item) =>
        `<li><span class="line">${e(item.line)}</span> <span class="source">from <code>${e(item.call)}</code></span></li>`,
    )
    .join('');
  return `<h4>Evidence</h4><ul class="evidence">${items}</ul>`;
}

/**
 * The template diff, one element per line: `+` added, `-` removed, `@@` hunk headers (the sign stays
 * in the text, so colour is never the only cue). A focusable scroll region (keyboard users can scroll
 * a long line sideways).
 */
function diffHtml(id: string, diff: string | null): string {
  if (!diff) return '';
  const lines = diff.split('\n').map((line) => {
    const kind = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+++') || line.startsWith('---')
        ? 'file'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'del'
            : 'same';
    return `<span class="${kind}">${e(line)}</span>`;
  });
  return [
    `<h4 id="diff-${id}">Pod template diff (current → proposed)</h4>`,
    // Block spans, one per line: no newlines between them (they would double the spacing).
    `<pre class="diff" tabindex="0" role="region" aria-labelledby="diff-${id}"><code>${lines.join('')}</code></pre>`,
  ].join('');
}

/**
 * The request as an HTML fragment for the approvals page: an `<article class="approval">` with
 * `data-id` and `data-status`, the sentence as its heading, the warnings first and prominent, then a
 * definition list of the facts, the requester's evidence (with the call that returned each), the
 * changes, the pod template diff and the executions. Every value is HTML-escaped; the fragment has
 * no scripts, styles or actions (the page adds its own controls).
 */
export function renderApprovalHtml(request: ApprovalRequest, options: RenderOptions = {}): string {
  const view = approvalView(request, options);
  const facts: [string, string][] = [
    ['Request', `${view.id} (${statusText(view)})`],
    ['Cluster', view.cluster],
    [
      'Requester',
      `${view.requester}, ${view.age} ago${view.requesterReason ? `: “${view.requesterReason}”` : ''}`,
    ],
    ['Policy', `rule ${view.rule}: ${view.policyReason}`],
    ['Approvers', `${view.approvers} (at most ${view.maxValidity})`],
    ...(view.decision ? ([['Decision', view.decision]] as [string, string][]) : []),
    ...(view.grantScope ? ([['Grant', view.grantScope]] as [string, string][]) : []),
    ...(view.statusReason ? ([['Ended', view.statusReason]] as [string, string][]) : []),
    ...(view.harness ? ([['Harness', view.harness]] as [string, string][]) : []),
    ...(view.investigation ? ([['From', view.investigation]] as [string, string][]) : []),
    ...(view.upstream ? ([['Upstream', view.upstream]] as [string, string][]) : []),
    ['Call', view.call],
  ];
  const id = e(view.id);
  return [
    `<article class="approval status-${e(view.status)}" data-id="${e(view.id)}" data-status="${e(view.status)}" aria-labelledby="sentence-${e(view.id)}">`,
    `<h3 class="sentence" id="sentence-${id}">${e(view.sentence)}</h3>`,
    warningsHtml(id, view.warnings),
    // Times in facts (a grant's "until") become <time>, which the page shows in the viewer's zone.
    `<dl class="facts">${facts.map(([term, value]) => `<dt>${e(term)}</dt><dd>${withTimeElements(e(value))}</dd>`).join('')}</dl>`,
    evidenceHtml(view.evidence),
    htmlList('changes', 'Changes', view.changes),
    diffHtml(id, view.templateDiff),
    htmlList('executions', 'Executions', view.executions),
    '</article>',
  ].join('');
}
