/** Public entry of the approvals web page: router, sessions and login tickets, page HTML, confirmations. */
export { createUiRouter, SESSION_COOKIE, type UiRouter, type UiRouterOptions } from './router.ts';
export {
  checkConfirmation,
  confirmationFor,
  PageApproveBodySchema,
  type Confirmation,
  type PageApproveBody,
} from './confirmation.ts';
export { createSessionStore, type Session, type SessionStore, type SessionStoreOptions } from './sessions.ts';
export {
  approvalsPage,
  loginPage,
  pageItem,
  PAGE_PATH,
  UI_PREFIX,
  type PageItem,
  type Snapshot,
} from './page.ts';
export { investigationVerification, type VerificationLookup, type VerificationView } from './verification.ts';
