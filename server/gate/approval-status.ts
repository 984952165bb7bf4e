/**
 * The statuses of an approval request, in lifecycle order (approval-request.ts holds the schema).
 * Apart so the command line can offer them (`approvals list --status`) without loading zod.
 */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'denied',
  'expired',
  'withdrawn',
  'executing',
  'executed',
  'failed',
  'stale',
  'cancelled',
  'superseded',
] as const;
