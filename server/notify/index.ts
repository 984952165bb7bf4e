/** Public entry of approval notifications: Slack-compatible webhook messages, routing and delivery. */
export { approvalMessage, escapeSlack, type SlackMessage } from './slack-message.ts';
export {
  createNotifier,
  routeNotification,
  type NotificationRoute,
  type Notifier,
  type NotifierOptions,
} from './notifier.ts';
