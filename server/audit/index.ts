/**
 * Public entry of the audit log: hash-chained records of every `tools/call` and approval event in
 * `<data-dir>/audit.sqlite`, the middleware and plugin that write them, and `sentinel audit`.
 */
export {
  AuditEntrySchema,
  AuditRecordSchema,
  canonicalJson,
  GENESIS_HASH,
  hashRecord,
  verifyChain,
  type AuditEntry,
  type AuditRecord,
  type ChainBreak,
  type ChainReport,
  type CheckpointRef,
  type StoredRow,
} from './record.ts';
export { AUDIT_FILE, openAuditLog, type AuditLog, type OpenAuditLogOptions } from './store.ts';
export {
  approvalEventEntry,
  rejectedCallEntry,
  settledExecutionEntry,
  toolCallEntry,
  SYSTEM_ACTOR,
  type FinishedCall,
} from './entries.ts';
export { createAuditMiddleware, type AuditMiddlewareOptions } from './middleware.ts';
export { auditEventListener, auditRejectionListener, auditSettledListener } from './listener.ts';
export { parseSince } from './since.ts';
export {
  appendCheckpoint,
  checkAppendable,
  CHECKPOINT_FILE,
  CheckpointSchema,
  checkpointLine,
  checkpointsFromOption,
  dataDirCheckpoints,
  headCheckpoint,
  parseCheckpoints,
  readCheckpoints,
  scheduleCheckpoints,
  sendCheckpoint,
  type Checkpoint,
  type CheckpointLines,
  type CheckpointSchedule,
} from './checkpoint.ts';
export {
  createUnauthenticatedAudit,
  unauthenticatedEntry,
  MAX_SOURCES,
  OTHER_SOURCE,
  type UnauthenticatedAudit,
  type UnauthenticatedRequest,
} from './unauthenticated.ts';
