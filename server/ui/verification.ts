/**
 * After execution, the approvals page shows how the change turned out: the verification the
 * investigation that asked for it recorded (the local investigator watches the rollout settle and
 * saves `verification` in `<data-dir>/investigations/<id>.json`, agent/investigator/store.ts). The
 * request names its investigation (the gate-owned `investigation` argument); a server sharing the
 * data directory reads that file. Only the `verification` field is read, with its own schema here
 * (the server does not import the agent), and a file that is missing, unreadable or malformed means
 * "not reported", never an error on the page.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ApprovalRequest } from '../gate/approval-request.ts';

/** The part of an investigation record the page reads (fields as the investigator writes them). */
const RecordedVerificationSchema = z.object({
  verification: z
    .object({
      healthy: z.boolean(),
      state: z.string(),
      message: z.string(),
      reverted_by: z.string().optional(),
    })
    .nullable(),
});

/** An investigation id as the investigator makes them (never a path). */
const INVESTIGATION_ID = /^inv_[0-9a-f]{16}$/;

/** What the page says about a request's outcome after execution. */
export interface VerificationView {
  /** `healthy`, `unhealthy`, or `pending` (executed, nothing recorded yet). */
  verdict: 'healthy' | 'unhealthy' | 'pending';
  /** One line, e.g. `healthy: rollout complete (investigation inv_…)`. */
  text: string;
}

/** Looks up the verification of an executed request; undefined when there is nothing to say. */
export type VerificationLookup = (request: ApprovalRequest) => VerificationView | undefined;

/**
 * The lookup reading `<dataDir>/investigations/<id>.json` for executed requests that name an
 * investigation. Requests that did not execute, or name none (or a non-id), get undefined.
 */
export function investigationVerification(dataDir: string): VerificationLookup {
  return (request) => {
    const id = request.preview?.investigation;
    if (request.status !== 'executed' || !id || !INVESTIGATION_ID.test(id)) return undefined;
    let recorded: z.infer<typeof RecordedVerificationSchema>['verification'];
    try {
      const text = readFileSync(join(dataDir, 'investigations', `${id}.json`), 'utf8');
      recorded = RecordedVerificationSchema.parse(JSON.parse(text)).verification;
    } catch {
      recorded = null; // not saved here (another data directory), or being replaced: not reported
    }
    if (!recorded) {
      return { verdict: 'pending', text: `not reported yet by investigation ${id}` };
    }
    const reverted = recorded.reverted_by ? ` (reverted by ${recorded.reverted_by})` : '';
    return {
      verdict: recorded.healthy ? 'healthy' : 'unhealthy',
      text: `${recorded.healthy ? 'healthy' : `not healthy, ${recorded.state}`}: ${recorded.message}${reverted} (investigation ${id})`,
    };
  };
}
