/**
 * Client entry of the server module: what the command line's client commands run (`approvals`,
 * `freeze`, `tokens`, `audit`) — the approvals API client, server discovery and client tokens, the
 * identity store, the audit log reader and checkpoints, the approval renderers — loading zod and
 * yaml but none of the server itself (no Express, MCP SDK, pino, metrics or Kubernetes client).
 * Everything here is also exported by index.ts; `test/light-entries.test.ts` checks what it loads.
 */
export * from './light.ts';
export { createApprovalsClient, type ApprovalsClient } from './approvals-client.ts';
export { clientToken, refusedToken, type ClientToken } from './client-token.ts';
export { ensureServerAnswers, isConnectionFailure, serverUnreachable } from './unreachable.ts';
export { runningServers, type ServerEntry } from './discovery.ts';
export { rotateLocalToken } from './local-token.ts';
export { createIdentityStore, IdentityNameSchema } from './identity-store.ts';
export { DurationSchema, type ApprovalRequest, type ApprovalStatus } from './gate/approval-request.ts';
export { confirmationFor, type Confirmation } from './ui/confirmation.ts';
export { formatFreeze, requestFreeze } from './gate/freeze-client.ts';
export {
  approvalSentence,
  renderApprovalLine,
  renderApprovalTable,
  renderApprovalText,
  withLocalTimes,
} from './render/index.ts';
export {
  appendCheckpoint,
  checkAppendable,
  checkpointLine,
  checkpointsFromOption,
  dataDirCheckpoints,
  headCheckpoint,
  sendCheckpoint,
} from './audit/checkpoint.ts';
export type { CheckpointRef } from './audit/record.ts';
export { checkWebhookUrl } from './webhook-url.ts';
export { parseSince } from './audit/since.ts';
export { openAuditLog } from './audit/store.ts';
