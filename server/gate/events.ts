/**
 * How the approval gate and the approver surfaces (notifications, metrics, audit, the approvals page)
 * meet inside one server, without importing each other: an `ApprovalsHub` that `sentinel serve`
 * creates and hands to every plugin (`ServerPluginContext.approvals`).
 *
 * The gate plugin (1) publishes every lifecycle change — pass `hub.publish` as the gate's `onEvent`
 * (events other than the ones below are ignored) — and (2) provides its approvals service with
 * `hub.provide(service)`. Surfaces subscribe to events and call `hub.service()` at request time.
 */
import type { ApprovalsService } from './approvals.ts';
import type { Logger } from 'pino';
import { SentinelError } from '../../core/index.ts';
import type { ApprovalRequest } from './approval-request.ts';
import type { ReconcileEvidence } from './reconcile.ts';
import type { StoredExecution } from './store/types.ts';

/**
 * A change of an approval request. `approval_created`: a new pending request (a call was held);
 * `approval_reused`: an identical held call found the pending one; `approval_decided`: approved or
 * denied (`request.decision`); `approval_withdrawn`; `approval_expired`: a pending request expired
 * unanswered, or an approved grant ended unused (`request.decision` is then set);
 * `approval_cancelled`: the requester's identity was revoked or re-keyed, or an approver revoked an
 * unused grant (`request.status_reason` says which); `approval_superseded`: the same call was made
 * again with a different effect and a new request replaced this one (`request.superseded_by`).
 */
export interface ApprovalEvent {
  type:
    | 'approval_created'
    | 'approval_reused'
    | 'approval_decided'
    | 'approval_withdrawn'
    | 'approval_expired'
    | 'approval_cancelled'
    | 'approval_superseded';
  request: ApprovalRequest;
}

export const APPROVAL_EVENT_TYPES: readonly ApprovalEvent['type'][] = [
  'approval_created',
  'approval_reused',
  'approval_decided',
  'approval_withdrawn',
  'approval_expired',
  'approval_cancelled',
  'approval_superseded',
];

/** Receives events synchronously, in the gate's call path: it must be quick and must not throw. */
export type ApprovalEventListener = (event: ApprovalEvent) => void;

/**
 * An execution settled outside a `tools/call`: by the restart reconciler (`settled_by: 'reconcile'`),
 * with the evidence it read from the cluster and the approval request it ran under (if any).
 */
export interface ExecutionSettledEvent {
  type: 'execution_settled';
  settled_by: 'reconcile';
  execution: StoredExecution;
  request: ApprovalRequest | undefined;
  evidence: ReconcileEvidence | null;
}

export type ExecutionSettledListener = (event: ExecutionSettledEvent) => void;

export interface ApprovalsHub {
  /** Adds a listener; returns a function that removes it. */
  subscribe(listener: ApprovalEventListener, options?: { remote?: boolean }): () => void;
  /**
   * Delivers an event that happened on another replica of a shared store (read back from it) to the
   * listeners subscribed with `remote: true` only — live views such as the approvals page — not to
   * those that record or notify (audit, metrics, webhooks), which the replica where it happened ran.
   */
  publishRemote(event: ApprovalEvent): void;
  /** Adds a listener of settled executions (`execution_settled`); returns a function that removes it. */
  subscribeSettled(listener: ExecutionSettledListener): () => void;
  /** Delivers an event to every listener; a listener that throws is logged and skipped. */
  publish(event: { type: string }): void;
  /** Called once by the gate plugin when it starts. */
  provide(service: ApprovalsService): void;
  /** The gate's service; throws `SentinelError('unavailable')` when the server runs without a gate. */
  service(): ApprovalsService;
  /** Whether a gate provided its service. */
  hasService(): boolean;
}

const isApprovalEvent = (event: { type: string }): event is ApprovalEvent =>
  (APPROVAL_EVENT_TYPES as readonly string[]).includes(event.type) && 'request' in event;

/** A hub with no listeners and no service yet. */
export function createApprovalsHub(logger?: Logger): ApprovalsHub {
  const listeners = new Set<ApprovalEventListener>();
  const settledListeners = new Set<ExecutionSettledListener>();
  const remoteListeners = new Set<ApprovalEventListener>();
  let provided: ApprovalsService | undefined;
  return {
    subscribe(listener, options = {}) {
      listeners.add(listener);
      if (options.remote) remoteListeners.add(listener);
      return () => {
        listeners.delete(listener);
        remoteListeners.delete(listener);
      };
    },
    publishRemote(event) {
      for (const listener of remoteListeners) {
        try {
          listener(event);
        } catch (error) {
          logger?.warn({ err: error, event: event.type }, 'approval event listener failed');
        }
      }
    },
    subscribeSettled(listener) {
      settledListeners.add(listener);
      return () => settledListeners.delete(listener);
    },
    publish(event) {
      if (event.type === 'execution_settled' && 'execution' in event) {
        for (const listener of settledListeners) {
          try {
            listener(event as ExecutionSettledEvent);
          } catch (error) {
            logger?.warn({ err: error, event: event.type }, 'execution event listener failed');
          }
        }
        return;
      }
      if (!isApprovalEvent(event)) return;
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          logger?.warn({ err: error, event: event.type }, 'approval event listener failed');
        }
      }
    },
    provide(service) {
      provided = service;
    },
    service() {
      if (!provided) {
        throw new SentinelError(
          'unavailable',
          'This server runs without the approval gate, so there are no approval requests.',
        );
      }
      return provided;
    },
    hasService: () => provided !== undefined,
  };
}
