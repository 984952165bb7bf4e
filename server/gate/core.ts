/**
 * The gate's shared state and options (`GateCore`), used by the gate middleware (gate.ts), the
 * executor (execute.ts) and the approvals service (approvals.ts); the binding of a call; and the
 * key the upstream replay window compares.
 */
import type { Logger } from 'pino';
import type { Tool, ToolRegistry } from '../../tools/index.ts';
import type { ToolCall } from '../pipeline.ts';
import type { StandingLookup } from './approver-standing.ts';
import { canonicalJson, sha256 } from './canonical.ts';
import type { ApprovalEvent, ExecutionSettledEvent } from './events.ts';
import type { CompiledPolicy } from './policy/evaluate.ts';
import type { Resolution } from './preview.ts';
import type { ApprovalStore, CallBinding } from './store/types.ts';
import type { UpstreamVerifier } from './upstream.ts';

/** Lifecycle events, for notifications, metrics and audit (issue 7). Listeners must not throw. */
export type GateEvent =
  | ApprovalEvent
  | ExecutionSettledEvent
  /** A `trust_upstream_approval` identity not present at start-up made its first call. */
  | { type: 'upstream_trust_added'; identity: string; at: string };

export interface GateOptions {
  registry: ToolRegistry;
  policy: CompiledPolicy;
  store: ApprovalStore;
  logger?: Logger;
  /** Clock (tests move it). Default `() => new Date()`. */
  now?: () => Date;
  /**
   * Server base URL shown in the pending message (where approvers act), e.g.
   * `http://127.0.0.1:7070`; a function when it is known only once the server listens. Without it
   * the message gives paths only.
   */
  approvalsUrl?: string | (() => string | undefined);
  /**
   * Tools whose calls the upstream harness gates (its `require_approval_for_tools`): for an identity
   * with `trustUpstreamApproval`, an `ask` on such a tool runs on the harness's approval alone.
   * Default: every write/destructive tool (the agent spec lists them all).
   */
  upstreamGated?: (tool: Tool) => boolean;
  onEvent?: (event: GateEvent) => void;
  /**
   * `trust_upstream_approval` identities present when the server started, as `name:credential`
   * (the start-up warning covered them). A trusted identity outside this set — added to tokens.yaml
   * while the server runs — is warned about on its first call. Undefined: no runtime warning.
   */
  trustedAtStart?: ReadonlySet<string>;
  /**
   * Verifies the harness approvals of `trust_upstream_approval` identities against their harness
   * (server/gate/upstream.ts). Without it no upstream approval is honoured: such calls are held.
   */
  upstreamVerifier?: UpstreamVerifier;
  /**
   * Whether an identity is a registered harness connector (default: it names an `upstreamHarness`,
   * or is `trueforge`). A held call of one says the harness approval arrived but does not count.
   */
  isHarnessConnector?: (identity: ToolCall['identity']) => boolean;
  /**
   * The identity named `name` now (tokens.yaml): a grant is used only while its approver exists and
   * may still approve it (`approverStanding`). Without it, approvers are not re-checked.
   */
  findIdentity?: StandingLookup['findIdentity'];
  /** Whether the identities can be read now; while they cannot, no grant is used. */
  identitiesReadable?: StandingLookup['identitiesReadable'];
}

/** The gate's shared state, used by the middleware and by the approvals service. */
export interface GateCore {
  options: GateOptions;
  now(): Date;
  emit(event: GateEvent): void;
}

export function createGateCore(options: GateOptions): GateCore {
  return {
    options,
    now: options.now ?? (() => new Date()),
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch (error) {
        options.logger?.warn({ err: error, event: event.type }, 'gate event listener failed');
      }
    },
  };
}

/** The binding of a call: requester, its token, and the cluster (context and API server URL). */
export function bindingOf(call: Pick<ToolCall, 'identity' | 'cluster'>): CallBinding {
  return {
    requester: call.identity.name,
    credential: call.identity.credential ?? '',
    cluster: call.cluster?.context ?? '',
    clusterServer: call.cluster?.server ?? '',
  };
}

/**
 * What the upstream replay window compares: the tool, the cluster (context and API server), the
 * resolved target object (kind, namespace, name, uid) and the resolved arguments (the end state the
 * call asks for) — so another spelling of the same change (defaults spelled out, a default target
 * made explicit) is still a replay. Observed state (generation, from-revision) is left out on
 * purpose: it changes once the first call ran, which is exactly when a replay must be caught.
 */
export function upstreamReplayKey(call: Pick<ToolCall, 'tool' | 'cluster'>, resolution: Resolution): string {
  const effect = resolution.preview?.effect;
  const target =
    typeof effect === 'object' && effect !== null && 'target' in effect
      ? (effect as { target: Record<string, unknown> }).target
      : undefined;
  return sha256(
    canonicalJson({
      tool: call.tool.name,
      cluster: { context: call.cluster?.context ?? '', server: call.cluster?.server ?? '' },
      target: target && {
        kind: target.kind,
        namespace: target.namespace,
        name: target.name,
        uid: target.uid,
      },
      arguments: resolution.arguments,
    }),
  );
}
