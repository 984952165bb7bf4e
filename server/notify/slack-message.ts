/**
 * The notification for a new approval request as a Slack-compatible incoming-webhook message
 * (`text` plus Block Kit `blocks`; Mattermost, Rocket.Chat and Teams' Slack-compatible endpoints
 * read `text`). The content comes from the one approval renderer, so it is redacted; Slack's own
 * markup characters (`&`, `<`, `>`) are escaped so a workload name cannot forge a link or mention.
 */
import type { ApprovalRequest } from '../gate/approval-request.ts';
import { approvalView, type RenderOptions } from '../render/index.ts';

/** A Slack incoming-webhook payload. */
export interface SlackMessage {
  text: string;
  blocks: Record<string, unknown>[];
}

/** Escapes the three characters Slack treats as markup in `mrkdwn` and `plain_text`. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's limit for a section's text is 3000 characters; keep well inside it. */
const MAX_SECTION = 2800;

const cap = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text: cap(text, MAX_SECTION) });

/**
 * The message for `request`. `pageUrl` is the approvals page (`https://host/ui/approvals`); the
 * request is linked as `<pageUrl>#<id>`. Without it the message says how to decide with the CLI.
 */
export function approvalMessage(
  request: ApprovalRequest,
  pageUrl: string | undefined,
  options: RenderOptions = {},
): SlackMessage {
  const view = approvalView(request, options);
  const link = pageUrl === undefined ? undefined : `${pageUrl}#${encodeURIComponent(view.id)}`;
  const cli = `sentinel approvals show ${view.id}`;
  const bullets = (items: readonly string[]) => items.map((item) => `• ${escapeSlack(item)}`).join('\n');
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: 'Approval needed' } },
    { type: 'section', text: mrkdwn(`*${escapeSlack(view.sentence)}*`) },
    {
      type: 'section',
      fields: [
        mrkdwn(`*Cluster*\n${escapeSlack(view.cluster)}`),
        mrkdwn(
          `*Requester*\n${escapeSlack(view.requester)}${view.requesterReason ? `: “${escapeSlack(view.requesterReason)}”` : ''}`,
        ),
        mrkdwn(`*Policy*\nrule ${escapeSlack(view.rule)}: ${escapeSlack(view.policyReason)}`),
        mrkdwn(`*Expires*\nin ${escapeSlack(view.expiresIn ?? '-')} (${escapeSlack(view.expiresAt)})`),
      ],
    },
  ];
  if (view.changes.length > 0)
    blocks.push({ type: 'section', text: mrkdwn(`*Changes*\n${bullets(view.changes)}`) });
  if (view.warnings.length > 0)
    blocks.push({ type: 'section', text: mrkdwn(`*Warnings*\n${bullets(view.warnings)}`) });
  if (link) {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Review in Sentinel' },
          url: link,
          action_id: 'sentinel_review',
        },
      ],
    });
  }
  blocks.push({
    type: 'context',
    elements: [mrkdwn(`${escapeSlack(view.id)} · or run \`${escapeSlack(cli)}\``)],
  });
  const text =
    `Approval needed: ${escapeSlack(view.sentence)} (requested by ${escapeSlack(view.requester)}, ${escapeSlack(view.cluster)}). ` +
    (link ? `Review: ${link}` : `Review: ${escapeSlack(cli)}`);
  return { text: cap(text, MAX_SECTION), blocks };
}
