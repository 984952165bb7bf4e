/**
 * A URL Sentinel posts to on an operator's behalf (an identity's approval webhook, `sentinel audit
 * checkpoint --webhook`): http or https, and never a literal link-local address, where the host's
 * cloud metadata service answers (169.254.169.254) — a post there could reach credentials.
 */
import { z } from 'zod';
import { SentinelError } from '../core/index.ts';

/**
 * Whether a URL's hostname is a literal link-local address (IPv4 169.254.0.0/16, IPv6 fe80::/10,
 * brackets included as `URL.hostname` gives them); names are not resolved here.
 */
function isLinkLocal(hostname: string): boolean {
  return /^169\.254\.\d+\.\d+$/.test(hostname) || /^\[fe[89ab][0-9a-f]:/i.test(hostname);
}

/** An http(s) URL that is not link-local; the issues name the rule broken. */
export const WebhookUrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine((url) => !URL.canParse(url) || !isLinkLocal(new URL(url).hostname), {
    message:
      'must not be a link-local address (169.254.0.0/16, fe80::/10: where cloud metadata services answer)',
  });

/**
 * Throws `SentinelError('invalid_input')` naming `field` and the rule when `url` is not a
 * `WebhookUrlSchema` URL; before anything is sent or written.
 */
export function checkWebhookUrl(url: string, field: string): void {
  const parsed = WebhookUrlSchema.safeParse(url);
  if (!parsed.success) {
    throw new SentinelError('invalid_input', `${field}: ${parsed.error.issues[0]!.message}.`, { field });
  }
}
