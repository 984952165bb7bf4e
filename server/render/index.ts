/**
 * Public entry of the approval renderer (see approval.ts): the one way every surface — approvals
 * page, `sentinel approvals` CLI, webhook notifications, local investigator, harness client — shows
 * an approval request or a tool call to a human. Plain-text and HTML-safe forms; all redacted.
 */
export {
  approvalSentence,
  approvalView,
  describeChange,
  describeWarning,
  renderApprovalHtml,
  APPROVAL_TABLE_HEADERS,
  renderApprovalLine,
  renderApprovalTable,
  renderApprovalText,
  type ApprovalView,
  type RenderOptions,
  type TextStyle,
} from './approval.ts';
export { describeToolCall, formatArguments, MAX_SENTENCE } from './describe-call.ts';
export {
  describePredicate,
  describeWindowGrant,
  describeWindowOffer,
  type WindowDescriptionInput,
} from './window.ts';
export { localTime, withLocalTimes, type LocalTimeOptions } from './time.ts';
export { timeHtml, withTimeElements } from './time-html.ts';
