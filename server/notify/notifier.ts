/**
 * Webhook notifications of new approval requests. For each new pending request, a Slack-compatible
 * message (see `approvalMessage`) is POSTed to the webhooks of the identities that may decide it
 * (the matched rule's `approvers`: names or `role:<role>`; never the requester). When none of them
 * has a webhook, the request goes to the admins' webhooks instead and is counted as a fallback.
 * Webhooks are set per identity in tokens.yaml (`sentinel tokens add <name> --role approver
 * --webhook <url>`); an admin identity's webhook is the admin webhook.
 *
 * Delivery never blocks or fails the tool call: it runs after the event, each attempt bounded by a
 * timeout, retried with backoff (p-retry) on network errors, 429 and 5xx, and given up after the
 * last attempt with a log line and a metric.
 */
import pRetry, { AbortError } from 'p-retry';
import type { Logger } from 'pino';
import type { ApprovalRequest } from '../gate/approval-request.ts';
import type { ApprovalEventListener } from '../gate/events.ts';
import type { IdentityRecord, IdentityStore } from '../identity-store.ts';
import type { SentinelMetrics } from '../metrics/metrics.ts';
import { approvalMessage } from './slack-message.ts';

/** Where a request's notification goes. */
export interface NotificationRoute {
  /** Distinct webhook URLs, in tokens.yaml order. */
  urls: string[];
  /** Identities notified. */
  recipients: string[];
  /** True when no listed approver had a webhook and the admins were chosen instead. */
  fallback: boolean;
}

const matchesApprover = (record: IdentityRecord, approvers: readonly string[]) =>
  approvers.some((entry) =>
    entry.startsWith('role:')
      ? record.roles.includes(entry.slice('role:'.length) as IdentityRecord['roles'][number])
      : entry === record.name,
  );

/** Chooses the webhooks for `request` among `identities` (see the module comment). */
export function routeNotification(
  request: Pick<ApprovalRequest, 'requester' | 'policy'>,
  identities: readonly IdentityRecord[],
): NotificationRoute {
  const reachable = identities.filter((record) => record.webhook && record.name !== request.requester);
  let chosen = reachable.filter((record) => matchesApprover(record, request.policy.approvers));
  const fallback = chosen.length === 0;
  if (fallback) chosen = reachable.filter((record) => record.roles.includes('admin'));
  return {
    urls: [...new Set(chosen.map((record) => record.webhook!))],
    recipients: chosen.map((record) => record.name),
    fallback,
  };
}

export interface NotifierOptions {
  identities: Pick<IdentityStore, 'list'>;
  /** The approvals page URL (`<base>/ui/approvals`), once the server listens; undefined in stdio mode. */
  pageUrl: () => string | undefined;
  metrics?: SentinelMetrics;
  logger?: Logger;
  /** Per attempt, in ms. Default 5000. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** First backoff in ms (doubles each retry). Default 500. */
  minBackoffMs?: number;
}

export interface Notifier {
  /** Subscribe this to the approvals hub. */
  listener: ApprovalEventListener;
  /** Resolves when every delivery started so far has finished (delivered or given up). */
  idle(): Promise<void>;
  /** Stops retrying and aborts deliveries in flight. */
  close(): Promise<void>;
}

export function createNotifier(options: NotifierOptions): Notifier {
  const { identities, metrics, logger } = options;
  const timeoutMs = options.timeoutMs ?? 5000;
  const closing = new AbortController();
  const inFlight = new Set<Promise<void>>();

  async function post(url: string, body: string): Promise<void> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), closing.signal]),
      redirect: 'error',
    });
    await response.body?.cancel();
    if (response.ok) return;
    const problem = `answered HTTP ${response.status}`;
    if (response.status === 429 || response.status >= 500) throw new Error(problem);
    throw new AbortError(problem); // 4xx other than 429: retrying will not help
  }

  async function deliver(url: string, body: string, request: ApprovalRequest): Promise<void> {
    // The URL may carry a secret path (Slack's does): log its origin only.
    const where = new URL(url).origin;
    try {
      await pRetry(() => post(url, body), {
        retries: options.retries ?? 2,
        minTimeout: options.minBackoffMs ?? 500,
        factor: 2,
        signal: closing.signal,
      });
      metrics?.webhookDeliveries.inc({ outcome: 'delivered' });
      logger?.info({ approvalRequestId: request.id, webhook: where }, 'approval notification delivered');
    } catch (error) {
      metrics?.webhookDeliveries.inc({ outcome: 'failed' });
      logger?.warn(
        { approvalRequestId: request.id, webhook: where, err: { message: (error as Error).message } },
        'approval notification not delivered',
      );
    }
  }

  function notify(request: ApprovalRequest): void {
    let route: NotificationRoute;
    try {
      route = routeNotification(request, identities.list());
    } catch (error) {
      logger?.error(
        { err: error, approvalRequestId: request.id },
        'approval notification: identities unreadable',
      );
      return;
    }
    if (route.fallback) metrics?.fallbackToAdmin.inc({ tool: request.tool });
    if (route.urls.length === 0) {
      logger?.warn(
        { approvalRequestId: request.id, approvers: request.policy.approvers },
        'approval request notified to nobody: no approver or admin has a webhook',
      );
      return;
    }
    const body = JSON.stringify(approvalMessage(request, options.pageUrl()));
    for (const url of route.urls) {
      const delivery = deliver(url, body, request).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  }

  return {
    listener: (event) => {
      if (event.type === 'approval_created' && event.request.status === 'pending') notify(event.request);
    },
    idle: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
    close: async () => {
      closing.abort();
      await Promise.all(inFlight);
    },
  };
}
