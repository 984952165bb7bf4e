/**
 * Public entry of harness mode: the TrueForge client, the event index, pending-approval resolution,
 * decisions, registration and the investigation driver.
 */
export { TrueForgeClient } from '../../trueforge/index.ts';
export type { HarnessConnectionOptions } from '../../trueforge/index.ts';
export { EventIndex, textOf, type ThreadInfo } from './event-index.ts';
export { pendingApprovalsOf, resolvePendingCalls, type PendingCall } from './pending.ts';
export {
  approvalTurn,
  decidePendingCalls,
  DEFAULT_DENY_REASON,
  type Decision,
  type DecisionOptions,
} from './decisions.ts';
export { defaultCallRenderer, type PendingCallRenderer } from './render.ts';
export type { PreviewLike, SentinelToolCall, ServerGrant, ServerGrantClient } from './server-grants.ts';
export { SentinelServerClient, sentinelEndpoints } from './sentinel-server.ts';
export { terminalPrompter, type ApprovalPrompter } from './prompter.ts';
export {
  runHarnessInvestigation,
  type HarnessInvestigationOptions,
  type HarnessInvestigationResult,
} from './investigate.ts';
export { registerWithHarness, type RegistrationOptions, type RegistrationResult } from './register.ts';
export { issueHarnessToken } from './harness-identity.ts';
export { SENTINEL_AGENT_NAME, HARNESS_IDENTITY, DEFAULT_SENTINEL_MCP_URL } from './names.ts';
export type * from '../../trueforge/index.ts';
