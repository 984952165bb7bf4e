/**
 * Dangerous approvals need a second, deliberate step on the approvals page: the approver types the
 * Deployment's name (the pattern GitHub and cloud consoles use for deleting a repository or a
 * cluster) before Allow submits. The page's script checks it for the human's sake; the router checks
 * it again (`checkConfirmation`), so a scripted form post cannot skip it.
 *
 * Dangerous means: scaling a Deployment to 0 replicas (every Pod stops), or any tool registered with
 * risk `destructive` (roll back, restart, scale). Write tools such as pause/resume need no typing.
 */
import { z } from 'zod';
import { SentinelError } from '../../core/index.ts';
import { ApproveBodySchema, type ApprovalRequest } from '../gate/approval-request.ts';
import { approvalSentence } from '../render/index.ts';

/** What the approver must do before allowing a dangerous request. */
export interface Confirmation {
  /** The text to type: the Deployment's name (the call's `name` argument), else the request id. */
  expected: string;
  /** What approving does, in one sentence the page shows next to the field. */
  effect: string;
}

type Confirmable = Pick<ApprovalRequest, 'id' | 'tool' | 'risk' | 'arguments' | 'preview'>;

/** `POST /ui/api/approvals/:id/approve` body: the approvals API body plus the typed confirmation. */
export const PageApproveBodySchema = ApproveBodySchema.extend({
  confirm: z.string().max(300).optional().describe('The Deployment name, typed by the approver.'),
});
export type PageApproveBody = z.infer<typeof PageApproveBodySchema>;

/** The confirmation `request` needs before it may be approved from the page, or undefined. */
export function confirmationFor(request: Confirmable): Confirmation | undefined {
  const { namespace, name, replicas } = request.arguments;
  const target =
    typeof name === 'string' && name !== ''
      ? `Deployment ${typeof namespace === 'string' ? `${namespace}/` : ''}${name}`
      : undefined;
  const expected = typeof name === 'string' && name !== '' ? name : request.id;
  if (request.tool === 'scale_deployment' && replicas === 0) {
    return {
      expected,
      effect: `Scaling ${target ?? 'this Deployment'} to 0 replicas stops every Pod; the service is unavailable until it is scaled back up.`,
    };
  }
  if (request.risk === 'destructive') {
    return { expected, effect: `${approvalSentence(request)}.` };
  }
  return undefined;
}

/**
 * Throws `invalid_input` (field `confirm`) unless `presented` (trimmed) is exactly the text
 * `request`'s confirmation expects. Requests that need no confirmation pass whatever is presented.
 */
export function checkConfirmation(request: Confirmable, presented: string | undefined): void {
  const confirmation = confirmationFor(request);
  if (!confirmation || presented?.trim() === confirmation.expected) return;
  throw new SentinelError(
    'invalid_input',
    `confirm: type '${confirmation.expected}' to approve ${request.id}. ${confirmation.effect}`,
    { field: 'confirm' },
  );
}
