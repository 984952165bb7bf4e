/**
 * Typed client for the TrueForge harness HTTP API (`../shared/harness/openapi.json`), limited to what
 * Sentinel uses: the MCP server connector, agents, sessions, turns (streamed and JSON), a turn's
 * state and persisted events, and re-subscribing to a running turn. Every method throws
 * `SentinelError` with the harness's own message on failure.
 */
import { z } from 'zod';
import { firstIssue } from './errors.ts';
import { HarnessHttp, type HarnessConnectionOptions } from './http.ts';
import {
  AgentSchema,
  ConfiguredMcpServerSchema,
  CreateTurnRequestSchema,
  ListTurnEventsResponseSchema,
  ListTurnsResponseSchema,
  SessionSchema,
  TokenPaginationSchema,
  TurnSchema,
  dataEnvelope,
  type Agent,
  type AgentSpec,
  type ConfiguredMcpServer,
  type CreateTurnRequest,
  type McpServerManifest,
  type Session,
  type Turn,
  type TurnEvent,
} from './schemas.ts';
import { readTurnEvents, type StreamedEvent } from './sse.ts';
import { SentinelError, sentinelCommand } from '../core/index.ts';

const TURN_INPUT_HINTS = {
  400: 'One turn carries either a user message or approval decisions, never both.',
  404: 'The session or its previous turn does not exist on this harness.',
  412: 'The session is no longer usable; start a new investigation.',
  422: 'The harness still waits for a decision on every pending tool call of the paused turn.',
};

/** Page size for listing a turn's events (the API maximum). */
const EVENTS_PAGE_SIZE = 100;
/** Page size for listing a session's turns (the API maximum). */
const TURNS_PAGE_SIZE = 25;

/**
 * The newest of `turns` by `created_at` (ISO 8601 compares as text once parsed to time); a tie, or
 * turns without `created_at`, go to the one later in the list.
 */
export function newestTurn(turns: readonly Turn[]): Turn | undefined {
  let newest: Turn | undefined;
  let newestTime = Number.NEGATIVE_INFINITY;
  for (const turn of turns) {
    const time = turn.created_at ? Date.parse(turn.created_at) : Number.NaN;
    const at = Number.isNaN(time) ? newestTime : time;
    if (newest === undefined || at >= newestTime) {
      newest = turn;
      newestTime = at;
    }
  }
  return newest;
}

export class TrueForgeClient {
  readonly http: HarnessHttp;

  constructor(options: HarnessConnectionOptions) {
    this.http = new HarnessHttp(options);
  }

  /** `GET /settings/mcp-servers/{name}`: the connector, or undefined when none has this name. */
  async getMcpServer(name: string): Promise<ConfiguredMcpServer | undefined> {
    try {
      const body = await this.http.request('GET', `settings/mcp-servers/${encodeURIComponent(name)}`, {
        schema: dataEnvelope(ConfiguredMcpServerSchema),
      });
      return body.data;
    } catch (error) {
      if (error instanceof SentinelError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** `POST /settings/mcp-servers`: creates a connector; 409 when the name is taken. */
  async createMcpServer(manifest: McpServerManifest): Promise<ConfiguredMcpServer> {
    const body = await this.http.request('POST', 'settings/mcp-servers', {
      body: { manifest },
      schema: dataEnvelope(ConfiguredMcpServerSchema),
      hints: { 409: `An MCP server named '${manifest.name}' already exists.` },
    });
    return body.data;
  }

  /** `PUT /settings/mcp-servers`: creates or replaces the connector with `manifest.name`. */
  async replaceMcpServer(manifest: McpServerManifest): Promise<ConfiguredMcpServer> {
    const body = await this.http.request('PUT', 'settings/mcp-servers', {
      body: { manifest },
      schema: dataEnvelope(ConfiguredMcpServerSchema),
    });
    return body.data;
  }

  /** `GET /agents`: every agent of the tenant. */
  async listAgents(): Promise<Agent[]> {
    const body = await this.http.request('GET', 'agents', { schema: dataEnvelope(z.array(AgentSchema)) });
    return body.data;
  }

  /** `POST /agents`: creates an agent; 409 when the name is taken. */
  async createAgent(name: string, manifest: AgentSpec): Promise<Agent> {
    const body = await this.http.request('POST', 'agents', {
      body: { name, manifest },
      schema: dataEnvelope(AgentSchema),
      hints: { 409: `An agent named '${name}' already exists.` },
    });
    return body.data;
  }

  /** `PUT /agents/{id}`: replaces the manifest of an existing agent. */
  async updateAgent(id: string, manifest: AgentSpec): Promise<Agent> {
    const body = await this.http.request('PUT', `agents/${encodeURIComponent(id)}`, {
      body: { manifest },
      schema: dataEnvelope(AgentSchema),
    });
    return body.data;
  }

  /** `POST /sessions` with `{agent: {name}}`: a session bound to the registered agent. */
  async createSession(agentName: string): Promise<Session> {
    const body = await this.http.request('POST', 'sessions', {
      body: { agent: { name: agentName } },
      schema: dataEnvelope(SessionSchema),
      hints: {
        404: `No agent named '${agentName}' is registered; run \`${sentinelCommand()} harness register\` first.`,
        422: `Agent '${agentName}' refers to something the harness lacks (model or MCP server); run \`${sentinelCommand()} harness register\` again.`,
      },
    });
    return body.data;
  }

  /**
   * `POST /sessions/{sid}/turns` with `stream: true`: yields the turn's events as they happen until
   * the harness closes the stream (after `turn.done`). Bad input (`request` not matching
   * `CreateTurnRequest`) is rejected before sending.
   */
  async *streamTurn(
    sessionId: string,
    request: CreateTurnRequest,
  ): AsyncGenerator<StreamedEvent, void, undefined> {
    const body = validateTurnRequest({ ...request, stream: true });
    const stream = await this.http.openStream('POST', `sessions/${encodeURIComponent(sessionId)}/turns`, {
      body,
      hints: TURN_INPUT_HINTS,
    });
    yield* readTurnEvents(stream);
  }

  /** `POST /sessions/{sid}/turns` with `stream: false`: the turn, still running, returned at once. */
  async createTurn(sessionId: string, request: CreateTurnRequest): Promise<Turn> {
    const body = await this.http.request('POST', `sessions/${encodeURIComponent(sessionId)}/turns`, {
      body: validateTurnRequest({ ...request, stream: false }),
      schema: dataEnvelope(TurnSchema),
      hints: TURN_INPUT_HINTS,
    });
    return body.data;
  }

  /** `GET /sessions/{sid}/turns/{tid}`: the turn with its state (`required_actions` when paused). */
  async getTurn(sessionId: string, turnId: string): Promise<Turn> {
    const body = await this.http.request('GET', turnPath(sessionId, turnId), {
      schema: dataEnvelope(TurnSchema),
    });
    return body.data;
  }

  /**
   * One page (25) of `GET /sessions?order=desc`: the token's own sessions, most recently updated
   * first (the harness scopes the list to the authenticated identity).
   */
  async listSessions(
    pageToken?: string,
  ): Promise<{ data: Session[]; pagination?: { next_page_token?: string } | undefined }> {
    return this.http.request('GET', 'sessions', {
      query: { limit: TURNS_PAGE_SIZE, order: 'desc', page_token: pageToken },
      schema: z.object({ data: z.array(SessionSchema), pagination: TokenPaginationSchema.optional() }),
    });
  }

  /**
   * Every turn of a session (`GET /sessions/{sid}/turns`, every page of 25). A live harness lists them
   * oldest first (created_at ascending; its docs say newest first and there is no order parameter,
   * OBSERVED.md), so the order is whatever the harness sent; use `latestTurn` for the newest.
   */
  async listTurns(sessionId: string): Promise<Turn[]> {
    const turns: Turn[] = [];
    let pageToken: string | undefined;
    do {
      const body = await this.http.request('GET', `sessions/${encodeURIComponent(sessionId)}/turns`, {
        query: { limit: TURNS_PAGE_SIZE, page_token: pageToken },
        schema: ListTurnsResponseSchema,
        hints: { 404: `Session '${sessionId}' does not exist on this harness.` },
      });
      turns.push(...body.data);
      pageToken = body.data.length > 0 ? body.pagination?.next_page_token : undefined;
    } while (pageToken);
    return turns;
  }

  /**
   * The newest turn of a session, or undefined when it has none: the whole list is read (never
   * `?limit=1`, which is the session's *first* turn on a live harness) and the turn with the latest
   * `created_at` wins; equal timestamps go to the one listed last (the observed ascending order).
   * Only this turn's `state.required_actions` are live: an older paused turn that was answered still
   * lists its old actions.
   */
  async latestTurn(sessionId: string): Promise<Turn | undefined> {
    return newestTurn(await this.listTurns(sessionId));
  }

  /**
   * `GET /sessions/{sid}/turns/{tid}/events`, every page, in insertion order. Persisted events hold
   * merged `model.message` events (no deltas), so tool names and arguments are complete.
   */
  async listTurnEvents(sessionId: string, turnId: string): Promise<TurnEvent[]> {
    const events: TurnEvent[] = [];
    let pageToken: string | undefined;
    do {
      const body = await this.http.request('GET', `${turnPath(sessionId, turnId)}/events`, {
        query: { limit: EVENTS_PAGE_SIZE, order: 'asc', page_token: pageToken },
        schema: ListTurnEventsResponseSchema,
      });
      events.push(...body.data);
      pageToken = body.data.length > 0 ? body.pagination?.next_page_token : undefined;
    } while (pageToken);
    return events;
  }

  /**
   * `GET /sessions/{sid}/turns/{tid}/subscribe`: replays the live stream of a running turn after
   * `afterSequence` (exclusive; all buffered events when undefined). 412 when the live stream is gone
   * (the turn finished): read its state and events instead.
   */
  async *subscribeTurn(
    sessionId: string,
    turnId: string,
    afterSequence?: number,
  ): AsyncGenerator<StreamedEvent, void, undefined> {
    const stream = await this.http.openStream('GET', `${turnPath(sessionId, turnId)}/subscribe`, {
      query: { after_sequence_number: afterSequence },
      hints: { 412: 'The turn is no longer streaming; its state and events can still be read.' },
    });
    yield* readTurnEvents(stream);
  }
}

function turnPath(sessionId: string, turnId: string): string {
  return `sessions/${encodeURIComponent(sessionId)}/turns/${encodeURIComponent(turnId)}`;
}

function validateTurnRequest(request: CreateTurnRequest): CreateTurnRequest {
  const parsed = CreateTurnRequestSchema.safeParse(request);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error, 'input');
    throw new SentinelError('invalid_input', `Turn input is invalid at ${field}: ${message}.`, { field });
  }
  return parsed.data;
}
