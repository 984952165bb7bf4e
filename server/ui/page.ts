/**
 * The approvals page's HTML: the login form, the page shell and one list item per request. The
 * request itself is rendered by the one approval renderer (`renderApprovalHtml`); this module adds
 * the controls. Everything interpolated is HTML-escaped; the page loads only its own script and
 * stylesheet (no inline code, so the Content-Security-Policy forbids everything else).
 */
import escapeHtml from 'escape-html';
import { createHash } from 'node:crypto';
import { humanDuration, oneLine, sanitizeText, redact } from '../../tools/index.ts';
import type { ApprovalRequest } from '../gate/approval-request.ts';
import { approvalView, renderApprovalHtml, timeHtml } from '../render/index.ts';
import { confirmationFor } from './confirmation.ts';
import type { VerificationView } from './verification.ts';

/** Path prefix of the page and its endpoints. */
export const UI_PREFIX = '/ui';
export const PAGE_PATH = `${UI_PREFIX}/approvals`;

/** HTML-escaped, with control, bidi and invisible characters made visible (`sanitizeText`). */
const e = (value: string) => escapeHtml(sanitizeText(value));
/** Redacted, single-line, bounded: for values the renderer has not already cleaned. */
const clean = (value: string): string => oneLine(redact(value).value, 400);

function layout(title: string, body: string, head = ''): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(title)}</title>`,
    // An icon of its own: without one the browser asks for /favicon.ico and logs the 404.
    `<link rel="icon" type="image/svg+xml" href="${UI_PREFIX}/assets/favicon.svg">`,
    `<link rel="stylesheet" href="${UI_PREFIX}/assets/approvals.css">`,
    head,
    '</head>',
    `<body>${body}</body>`,
    '</html>',
  ].join('\n');
}

/** The login form: an approver token, posted to `/ui/login`. `problem` is shown as an alert. */
export function loginPage(problem?: string): string {
  return layout(
    'Sign in · Sentinel approvals',
    [
      '<main class="login">',
      '<h1>Sentinel approvals</h1>',
      problem ? `<p class="error" role="alert">${e(problem)}</p>` : '',
      `<form method="post" action="${UI_PREFIX}/login">`,
      '<label for="token">Approver token</label>',
      '<input id="token" name="token" type="password" autocomplete="off" required autofocus>',
      '<button type="submit">Sign in</button>',
      '</form>',
      '<p class="hint">Use the one-time login URL <code>sentinel serve</code> printed, or a token of an identity with the approver or admin role (<code>sentinel tokens add NAME --role approver</code>).</p>',
      '</main>',
    ].join('\n'),
  );
}

/**
 * One request as the page lists it: its id, the cluster it targets (the kubeconfig context, `''`
 * without one; the page groups and filters by it), a digest of its HTML (to skip unchanged items),
 * and the HTML.
 */
export interface PageItem {
  id: string;
  cluster: string;
  hash: string;
  html: string;
}

/**
 * The typed confirmation a dangerous request needs before Allow (see confirmation.ts); the page's
 * script compares the field with `data-expected`, the router checks it again.
 */
function confirmField(request: ApprovalRequest): string {
  const confirmation = confirmationFor(request);
  if (!confirmation) return '';
  const id = e(request.id);
  return [
    '<div class="confirm">',
    `<label for="confirm-${id}">Type <strong>${e(confirmation.expected)}</strong> to allow: ${e(confirmation.effect)}</label>`,
    `<input id="confirm-${id}" name="confirm" type="text" autocomplete="off" spellcheck="false" autocapitalize="off" aria-required="true" data-expected="${e(confirmation.expected)}">`,
    '</div>',
  ].join('');
}

/** Allow/Deny controls of a pending request (validity choice only when the rule allows a window). */
function controls(request: ApprovalRequest): string {
  const id = e(request.id);
  const validity = request.policy.validity;
  const choice =
    validity === 'once'
      ? ''
      : [
          `<label for="validity-${id}">Grant</label>`,
          `<select id="validity-${id}" name="validity">`,
          '<option value="once" selected>once (this exact call)</option>',
          `<option value="${e(validity.window)}">for ${e(validity.window)} (also other calls: see Grant above)</option>`,
          '</select>',
        ].join('');
  return [
    `<div class="actions" role="group" aria-label="Decide ${id}">`,
    confirmField(request),
    choice,
    '<button type="button" class="allow" data-action="allow">Allow</button>',
    `<button type="button" class="deny" data-action="deny" aria-expanded="false" aria-controls="deny-${id}">Deny…</button>`,
    '</div>',
    // novalidate: the page's script says what is missing, in words, where the human is looking.
    `<form class="deny-form" id="deny-${id}" hidden novalidate>`,
    `<label for="reason-${id}">Why deny? (shown to the requester)</label>`,
    `<textarea id="reason-${id}" name="reason" aria-required="true" maxlength="2000" rows="2"></textarea>`,
    '<button type="submit" class="deny-confirm">Deny request</button>',
    '<button type="button" data-action="cancel">Cancel</button>',
    '</form>',
  ].join('');
}

/**
 * What an approved request's grant lets through and until when, for grants that do not record their
 * own `scope` (the shared renderer shows a recorded scope as the request's "Grant" fact). A `window`
 * grant covers calls of the same tool by the same requester on the same cluster that match the same
 * policy rules (DESIGN.md, "Decision"). Redacted and escaped like the rest of the request.
 */
function grantScope(request: ApprovalRequest, now: Date): string {
  const { grant } = request;
  if (!grant || (grant as { scope?: unknown }).scope !== undefined) return '';
  const view = approvalView(request, { now });
  const left = Date.parse(grant.expires_at) - now.getTime();
  const until =
    request.status === 'approved' && left > 0
      ? `until ${TIME_MARK} (${humanDuration(left)} left)`
      : `until ${TIME_MARK}`;
  const covers =
    grant.validity === 'once'
      ? `this exact call, once, ${until}`
      : `every ${view.tool} call by ${view.requester} on ${view.cluster} that matches policy ${
          request.policy.rules.length === 1 ? 'rule' : 'rules'
        } ${request.policy.rules.map(clean).join(', ')}, for ${clean(grant.validity.window)}, ${until}`;
  // The mark is the last occurrence (rule names come before it and could contain it).
  const text = e(covers);
  const at = text.lastIndexOf(TIME_MARK);
  const html = `${text.slice(0, at)}${timeHtml(grant.expires_at)}${text.slice(at + TIME_MARK.length)}`;
  return `<p class="grant"><strong>Grant covers</strong> ${html}</p>`;
}

/** Stands for a time in escaped text until it is replaced by its `<time>` element. */
const TIME_MARK = '{{until}}';

/** Words for each status, so it is never told by colour alone. */
const STATUS_LABELS: Record<ApprovalRequest['status'], string> = {
  pending: 'Pending: waiting for a decision',
  approved: 'Approved: waiting for the retry',
  executing: 'Executing',
  executed: 'Executed',
  denied: 'Denied',
  expired: 'Expired: never decided',
  cancelled: 'Cancelled',
  withdrawn: 'Withdrawn by the requester',
  failed: 'Failed',
  superseded: 'Superseded',
  stale: 'Stale: the target changed, not run',
};

/** The status badge, and for a pending request a live countdown to its expiry. */
function statusHtml(request: ApprovalRequest): string {
  const status = e(request.status);
  const label = e(STATUS_LABELS[request.status]);
  const badge = `<p class="status-label status-${status}"><span>${label}</span></p>`;
  if (request.status !== 'pending') return badge;
  const expires = e(request.expires_at);
  return `${badge}<p class="countdown">Expires ${timeHtml(request.expires_at)} <span data-countdown="${expires}"></span></p>`;
}

/** The cluster badge: which cluster the change is for, the first thing read after the status. */
function clusterHtml(request: ApprovalRequest): string {
  const context = request.cluster ? clean(request.cluster.context) : 'no cluster configured';
  const server = request.cluster ? ` title="${e(clean(request.cluster.server))}"` : '';
  return `<p class="cluster-label">Cluster <strong${server}>${e(context)}</strong></p>`;
}

/** After execution: how it turned out (the requester's verification), in words and colour. */
function verificationHtml(verification: VerificationView | undefined): string {
  if (!verification) return '';
  return `<p class="verification verification-${verification.verdict}"><strong>Verification</strong> ${e(clean(verification.text))}</p>`;
}

/**
 * The list item for `request`: status, cluster, the rendered request, the verification after
 * execution, controls when pending, an error slot.
 */
export function pageItem(request: ApprovalRequest, now: Date, verification?: VerificationView): PageItem {
  const html = [
    statusHtml(request),
    clusterHtml(request),
    verificationHtml(verification),
    renderApprovalHtml(request, { now }),
    grantScope(request, now),
    request.status === 'pending' ? controls(request) : '',
    '<p class="error" role="alert" hidden></p>',
  ].join('');
  return {
    id: request.id,
    cluster: request.cluster?.context ?? '',
    hash: createHash('sha256').update(html).digest('hex').slice(0, 16),
    html,
  };
}

function items(list: readonly PageItem[]): string {
  return list
    .map(
      (item) =>
        `<li data-id="${e(item.id)}" data-cluster="${e(item.cluster)}" data-hash="${e(item.hash)}" tabindex="-1">${item.html}</li>`,
    )
    .join('');
}

export interface Snapshot {
  pending: PageItem[];
  history: PageItem[];
}

/** The cluster filter: every cluster of the snapshot (the page's script adds ones that arrive later). */
function clusterFilter(snapshot: Snapshot): string {
  const clusters = [
    ...new Set([...snapshot.pending, ...snapshot.history].map((item) => item.cluster)),
  ].sort();
  const options = clusters
    .map((cluster) => `<option value="${e(cluster)}">${e(cluster === '' ? 'no cluster' : cluster)}</option>`)
    .join('');
  return [
    '<p class="filter">',
    '<label for="cluster-filter">Show cluster</label> ',
    `<select id="cluster-filter"><option value="*" selected>All clusters</option>${options}</select>`,
    '</p>',
  ].join('');
}

/** The page for a signed-in approver, with the current lists (live updates then come over SSE). */
export function approvalsPage(options: { identity: string; csrf: string; snapshot: Snapshot }): string {
  const { identity, csrf, snapshot } = options;
  return layout(
    'Sentinel approvals',
    [
      '<a class="skip" href="#pending-heading">Skip to pending requests</a>',
      '<header>',
      '<h1>Sentinel approvals</h1>',
      `<form method="post" action="${UI_PREFIX}/logout" class="signout">`,
      `<span>Signed in as <strong>${e(identity)}</strong></span>`,
      `<input type="hidden" name="csrf" value="${e(csrf)}">`,
      '<button type="submit">Sign out</button>',
      '</form>',
      '</header>',
      '<main>',
      '<p id="status" role="status" aria-live="polite"></p>',
      clusterFilter(snapshot),
      '<section aria-labelledby="pending-heading">',
      `<h2 id="pending-heading" tabindex="-1">Pending <span id="pending-count">(${snapshot.pending.length})</span></h2>`,
      `<p id="pending-empty"${snapshot.pending.length > 0 ? ' hidden' : ''}>No pending approval requests.</p>`,
      `<ol id="pending" class="approvals">${items(snapshot.pending)}</ol>`,
      '</section>',
      '<section aria-labelledby="history-heading">',
      '<h2 id="history-heading">Recently decided</h2>',
      `<ol id="history" class="approvals">${items(snapshot.history)}</ol>`,
      '</section>',
      '</main>',
      '<footer><p id="connection" aria-live="polite">Live updates: connecting…</p></footer>',
    ].join('\n'),
    [
      `<meta name="csrf-token" content="${e(csrf)}">`,
      `<script src="${UI_PREFIX}/assets/approvals.js" defer></script>`,
    ].join('\n'),
  );
}
