/**
 * Verifies a harness approval instead of trusting a token (`trust_upstream_approval`, DESIGN.md
 * "Upstream approval"). The TrueForge harness keeps the record of the human decision: a paused
 * turn's `state.required_actions` lists the pending tool calls, the turn that resumed it carries a
 * `user.tool_approval` per call in its `input`, and the paused turn's persisted events hold each
 * call's tool and arguments (`../shared/harness/OBSERVED.md`, "Cold reload"). The MCP call itself
 * carries nothing identifying session, turn or tool call (OBSERVED.md, "What the MCP server sees"),
 * so the server searches the harness for an approval that matches the call.
 *
 * An upstream approval counts only when the harness, read with the identity's own read token, shows:
 * - a tool call of the same tool with the same arguments (canonical, defaults applied) that a paused
 *   turn was waiting for;
 * - whose FIRST answer in its session is an allow — a later `previous_turn_id` replay can flip an
 *   earlier deny to allow (OBSERVED.md, defect 1), so only the first answer is the human's;
 * - given no longer ago than `max_age` (default 2 minutes), by the answering turn's `created_at`;
 * - not consumed by an earlier execution (the gate records each use under the call's `client_ref`,
 *   unique in the store, so a replay of the same tool call never runs twice).
 *
 * Residual risk (README): the server proves the harness *recorded* an allow, not that a person
 * clicked it — whoever can post turns to the harness as that user (its login, or anyone on a local
 * harness without login) can create one. A leaked connector token alone no longer suffices.
 */
import { readFileSync } from 'node:fs';
import { toSentinelError } from '../../core/index.ts';
import { TrueForgeClient, type Turn, type TurnEvent } from '../../trueforge/index.ts';
import type { Identity } from '../identity.ts';
import { durationMs, type ClientRef } from './approval-request.ts';

/** Oldest harness allow honoured by default. */
export const DEFAULT_UPSTREAM_MAX_AGE = '2m';
/** Most session pages (25 each) read per verification. */
const MAX_SESSION_PAGES = 4;

/** A harness approval that matches the call. */
export interface UpstreamCandidate {
  ref: ClientRef;
  /** When the harness recorded the allow (ISO 8601). */
  approvedAt: string;
}

/** What the harness shows for a call: matching allows (newest first), or why there is none. */
export interface UpstreamFinding {
  candidates: UpstreamCandidate[];
  /** One sentence for the held result when there is no candidate. */
  why: string;
}

export interface UpstreamVerifier {
  /**
   * The harness approvals of `identity`'s harness that match `tool` with arguments whose canonical
   * key is `key` (`keyOf` turns a harness call's raw arguments into the same key, or undefined when
   * they do not parse). Never throws: a harness that cannot be read gives no candidate and says why.
   */
  find(
    identity: Identity,
    tool: string,
    key: string,
    keyOf: (args: Record<string, unknown>) => string | undefined,
    now: Date,
  ): Promise<UpstreamFinding>;
}

interface ApprovalInput {
  type: 'user.tool_approval';
  tool_call_id: string;
  approval: { status: string };
}

function approvalsIn(turn: Turn): ApprovalInput[] {
  const input = (turn as { input?: unknown }).input;
  if (!Array.isArray(input)) return [];
  return input.filter(
    (item): item is ApprovalInput =>
      typeof item === 'object' &&
      item !== null &&
      (item as { type?: unknown }).type === 'user.tool_approval' &&
      typeof (item as { tool_call_id?: unknown }).tool_call_id === 'string',
  );
}

function pendingIds(turn: Turn): Set<string> {
  const ids = new Set<string>();
  if (turn.state.status !== 'done') return ids;
  for (const action of turn.state.required_actions) {
    const calls = (action as { tool_calls?: { id?: unknown }[] }).tool_calls ?? [];
    for (const call of calls) if (typeof call.id === 'string') ids.add(call.id);
  }
  return ids;
}

function callIn(events: TurnEvent[], toolCallId: string): { name: string; arguments: string } | undefined {
  for (const event of events) {
    if (event.type !== 'model.message') continue;
    const calls = (event as { tool_calls?: unknown[] }).tool_calls ?? [];
    for (const raw of calls) {
      const call = raw as {
        id?: string;
        function?: { name?: string; arguments?: string };
        tool_info?: { name?: string };
      };
      if (call.id === toolCallId) {
        return {
          name: call.tool_info?.name ?? call.function?.name ?? '',
          arguments: call.function?.arguments ?? '',
        };
      }
    }
  }
  return undefined;
}

/** The verifier over the TrueForge HTTP API, reading each identity's `upstreamHarness`. */
export function createUpstreamVerifier(
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): UpstreamVerifier {
  return {
    async find(identity, tool, key, keyOf, now) {
      const harness = identity.upstreamHarness;
      if (!harness) {
        return {
          candidates: [],
          why: `identity '${identity.name}' names no harness to verify its approvals against (upstream_harness in tokens.yaml)`,
        };
      }
      const maxAgeMs = durationMs(harness.max_age ?? DEFAULT_UPSTREAM_MAX_AGE);
      const since = now.getTime() - maxAgeMs;
      try {
        const token = harness.token_file ? readFileSync(harness.token_file, 'utf8').trim() : undefined;
        const client = new TrueForgeClient({
          url: harness.url,
          token,
          timeoutMs: options.timeoutMs ?? 5_000,
          ...(options.fetch && { fetch: options.fetch }),
        });
        const harnessUrl = client.http.baseUrl.href.replace(/\/api\/v1\/$/, '');
        const candidates: UpstreamCandidate[] = [];
        for (const session of await recentSessions(client, since)) {
          const turns = await client.listTurns(session);
          // The first answer of each tool call in the session is the human's; later ones are replays.
          const first = new Map<string, { turn: Turn; status: string; at: number }>();
          for (const turn of turns) {
            const at = Date.parse(turn.created_at ?? '');
            for (const item of approvalsIn(turn)) {
              const seen = first.get(item.tool_call_id);
              if (!seen || at < seen.at)
                first.set(item.tool_call_id, { turn, status: item.approval.status, at });
            }
          }
          for (const [toolCallId, answer] of first) {
            if (answer.status !== 'allow' || !(answer.at >= since)) continue;
            const paused = turns.find((t) => t.id === answer.turn.previous_turn_id);
            if (!paused || !pendingIds(paused).has(toolCallId)) continue;
            const call = callIn(await client.listTurnEvents(session, paused.id), toolCallId);
            if (!call || call.name !== tool) continue;
            let args: unknown;
            try {
              args = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
            } catch {
              continue;
            }
            if (typeof args !== 'object' || args === null || Array.isArray(args)) continue;
            if (keyOf(args as Record<string, unknown>) !== key) continue;
            candidates.push({
              ref: {
                harness_url: harnessUrl,
                session_id: session,
                turn_id: paused.id,
                tool_call_id: toolCallId,
              },
              approvedAt: new Date(answer.at).toISOString(),
            });
          }
        }
        // Newest first: the allow the harness acted on just now is the likeliest to be this call's.
        candidates.sort((a, b) => b.approvedAt.localeCompare(a.approvedAt));
        return {
          candidates,
          why: `the harness at ${harnessUrl} shows no allow of this exact ${tool} call in the last ${harness.max_age ?? DEFAULT_UPSTREAM_MAX_AGE} that no earlier execution used`,
        };
      } catch (error) {
        return {
          candidates: [],
          why: `the harness at ${harness.url} could not be read to verify the approval (${toSentinelError(error).message})`,
        };
      }
    },
  };
}

/** Ids of the sessions updated since `since` (ms), newest first, a bounded number of pages. */
async function recentSessions(client: TrueForgeClient, since: number): Promise<string[]> {
  const ids: string[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_SESSION_PAGES; page++) {
    const body = await client.listSessions(pageToken);
    let older = false;
    for (const session of body.data) {
      const updated = Date.parse(String(session.updated_at ?? ''));
      if (Number.isFinite(updated) && updated < since) older = true;
      else ids.push(session.id);
    }
    pageToken = body.pagination?.next_page_token;
    if (older || !pageToken || body.data.length === 0) break;
  }
  return ids;
}
