/**
 * A fake TrueForge harness for tests, written from `../shared/harness/openapi.json` and the behaviour
 * a live harness showed (`../shared/harness/OBSERVED.md`):
 * - JSON bodies wrapped as `{"data": ...}`, errors as `{"error": {"message", "type"}}`;
 * - SSE framed `data: <json>\nid: <seq>\n\n` with no `event:` line, written in small pieces;
 * - a streamed model message is a base `model.message` then `model.message.delta`s whose
 *   `tool_calls[index]` fragments carry id/name, split arguments and (in a later fragment) tool_info;
 *   persisted events hold the merged message instead;
 * - a paused turn ends with `turn.done` whose `state.required_actions` lists the approval events;
 * - turn input: mixing user.message and approvals → 400, partial/empty batch, unknown or duplicate
 *   tool_call_id, wrong thread, or a user.message while approvals are pending → 422, bad status → 400;
 * - `GET /sessions/{sid}/turns` lists turns **oldest first** (created_at ascending, pages of at most
 *   25, `next_page_token`), whatever the docs say; a resumed paused turn keeps its old
 *   `state.required_actions` (only the newest turn's are live);
 * - `previous_turn_id` naming an earlier paused turn replays it: its old required_actions are accepted
 *   again and allowed calls are sent to the MCP server again (OBSERVED.md, safety defect 1), a deny
 *   can be flipped to allow; `previous_turn_id: "none"` skips pending approvals;
 * - `GET /sessions` (newest first by updated_at) and `GET /sessions/{sid}/events` (`{turn_id, event}`,
 *   newest first), which a server verifying upstream approvals reads; every turn's `input` (with its
 *   `user.tool_approval` items) and `created_at` are real.
 *
 * Turns are scripted: each POST of a turn takes the next script, which returns the steps to play.
 * With `executeApprovedCalls`, allowed calls really go to the registered MCP server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedCall {
  id: string;
  /** MCP tool name. */
  name: string;
  arguments: Record<string, unknown> | string;
  /** MCP server name; default `sentinel`. */
  server?: string;
}

export type Step =
  | { kind: 'message'; thread?: string; text?: string; calls?: ScriptedCall[] }
  | { kind: 'approval'; thread?: string; callIds: string[] }
  | { kind: 'tool.response'; thread?: string; callId: string; content: string }
  | { kind: 'thread.created'; thread: string; title: string; parent: { thread: string; callId: string } }
  /** The turn ends in error with this message. */
  | { kind: 'error'; message: string };

export interface TurnInputItem {
  type: string;
  content?: unknown;
  thread_id?: string;
  tool_call_id?: string;
  approval?: { status: string; reason?: string };
}

/** What a script sees: the turn's input and the calls it resolves. */
export interface ScriptContext {
  turnId: string;
  input: TurnInputItem[];
  previousTurnId: string | undefined;
}

export type TurnScript = (context: ScriptContext) => Step[];

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: unknown;
  authorization: string | undefined;
}

interface StoredEvent {
  sequence: number;
  /** Event as streamed. */
  streamed: Record<string, unknown>;
}

interface FakeTurn {
  id: string;
  sessionId: string;
  previousTurnId: string | null;
  createdAt: string;
  input: TurnInputItem[];
  state: Record<string, unknown>;
  /** Everything streamed, in order (deltas included). */
  stream: StoredEvent[];
  /** What GET .../events returns (merged messages, no deltas). */
  persisted: Record<string, unknown>[];
  /** Calls this turn still waits for, with their thread (emptied once it is resumed). */
  pending: { threadId: string; toolCallId: string }[];
  /** Calls this turn paused for, kept after it is resumed (a replay accepts them again). */
  required: { threadId: string; toolCallId: string }[];
  /** Settles once the turn's events are all there (it is played, or failed to be). */
  played: Promise<void>;
}

interface FakeSession {
  id: string;
  agentName: string;
  createdAt: string;
  updatedAt: string;
  turns: FakeTurn[];
}

/** One call the fake sent to an MCP server (its mutation log). */
export interface ExecutedCall {
  name: string;
  result: unknown;
  sessionId: string;
  /** The turn whose input allowed it. */
  turnId: string;
  toolCallId: string;
  arguments: Record<string, unknown>;
}

export interface FakeTrueForgeOptions {
  /** Page size of GET .../events whatever the client asks (exercises pagination). Default 100. */
  eventsPageSize?: number;
  /** Close the stream of a new turn after this many events (simulates a dropped connection). */
  dropStreamAfter?: number;
  /** Shared log of observable actions, for ordering assertions across fakes. */
  timeline?: string[];
  /** Required bearer token; unset: no auth (a local harness). */
  token?: string;
  /**
   * Calls a paused turn also waits for without listing them in its events or required_actions (a
   * harness whose state drifted, e.g. the agent was edited mid-pause): decisions then get 422.
   */
  hiddenPending?: { threadId: string; toolCallId: string }[];
  /**
   * Act on decisions like a live harness: each allowed call is sent to its MCP server (the registered
   * connector's URL and headers, `tools/call {name, arguments}` and nothing else) and its result text
   * becomes the `tool.response`; a denied call never reaches the server and gets the deny text the
   * model was observed to receive. These responses come before the script's steps.
   */
  executeApprovedCalls?: boolean;
  /** Steps of a turn posted when no script is queued (e.g. replays); default: none queued is a 500. */
  fallbackScript?: TurnScript;
  /** Clock for created_at/updated_at; default the real one. Timestamps are made strictly increasing. */
  now?: () => Date;
}

/** Largest page of GET /sessions and GET /sessions/{sid}/turns (openapi.json: max 25). */
const LIST_PAGE_MAX = 25;

export class FakeTrueForge {
  url = '';
  readonly requests: RecordedRequest[] = [];
  readonly mcpServers = new Map<string, Record<string, unknown>>();
  readonly agents = new Map<string, { id: string; name: string; manifest: Record<string, unknown> }>();
  readonly sessions = new Map<string, FakeSession>();
  /** Calls sent to MCP servers (with `executeApprovedCalls`), with their results, in order. */
  readonly executed: ExecutedCall[] = [];
  private readonly scripts: TurnScript[] = [];
  private readonly options: FakeTrueForgeOptions;
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  private counter = 0;
  private lastTime = 0;

  constructor(options: FakeTrueForgeOptions = {}) {
    this.options = options;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Queues the script of the next turn. */
  script(...scripts: TurnScript[]): this {
    this.scripts.push(...scripts);
    return this;
  }

  /**
   * What an engineer does in the harness's own UI, through the harness API: a session whose model
   * proposes `calls` (one paused turn), then the decisions posted as the UI posts them (default:
   * allow each). Registers an agent named `sentinel` when none exists. Returns the session, the
   * paused turn and the answering turn.
   */
  async uiApproval(
    calls: ScriptedCall[],
    decisions: Record<string, 'allow' | 'deny'> = {},
    token = this.options.token,
  ): Promise<{ sessionId: string; pausedTurnId: string; answerTurnId: string }> {
    if (![...this.agents.values()].some((a) => a.name === 'sentinel')) {
      const id = this.nextId('agent');
      this.agents.set(id, { id, name: 'sentinel', manifest: { model: { name: 'fake/scripted' } } });
    }
    const api = async (path: string, body: unknown) => {
      const response = await fetch(`${this.url}/api/v1/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token && { authorization: `Bearer ${token}` }) },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`fake harness: POST ${path} answered ${response.status}: ${text}`);
      return JSON.parse(text) as { data: { id: string } };
    };
    const session = (await api('sessions', { agent: { name: 'sentinel' } })).data.id;
    const ids = calls.map((call) => call.id);
    this.scripts.unshift(
      () => [
        { kind: 'message', calls },
        { kind: 'approval', callIds: ids },
      ],
      () => [],
    );
    const paused = (
      await api(`sessions/${session}/turns`, {
        input: [{ type: 'user.message', content: 'investigate' }],
        stream: false,
      })
    ).data.id;
    const answer = (
      await api(`sessions/${session}/turns`, {
        input: ids.map((id) => ({
          type: 'user.tool_approval',
          thread_id: 'main',
          tool_call_id: id,
          approval: decisions[id] === 'deny' ? { status: 'deny', reason: 'no' } : { status: 'allow' },
        })),
        previous_turn_id: paused,
        stream: false,
      })
    ).data.id;
    return { sessionId: session, pausedTurnId: paused, answerTurnId: answer };
  }

  /** The POSTed turn bodies, in order. */
  turnBodies(): Record<string, unknown>[] {
    return this.requests
      .filter((r) => r.method === 'POST' && /\/turns$/.test(r.path))
      .map((r) => r.body as Record<string, unknown>);
  }

  turn(turnId: string): FakeTurn | undefined {
    for (const session of this.sessions.values()) {
      const turn = session.turns.find((t) => t.id === turnId);
      if (turn) return turn;
    }
    return undefined;
  }

  /** The current time as ISO 8601, strictly after the previous timestamp handed out. */
  private timestamp(): string {
    const now = (this.options.now ?? (() => new Date()))().getTime();
    this.lastTime = Math.max(now, this.lastTime + 1);
    return new Date(this.lastTime).toISOString();
  }

  private nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${this.counter}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const text = await readBody(req);
    const body: unknown = text ? JSON.parse(text) : undefined;
    const path = url.pathname;
    this.requests.push({
      method: req.method ?? '',
      path,
      query: Object.fromEntries(url.searchParams),
      body,
      authorization: req.headers.authorization,
    });
    this.options.timeline?.push(`harness ${req.method} ${path}`);
    if (this.options.token && req.headers.authorization !== `Bearer ${this.options.token}`) {
      return send(res, 401, { error: { message: 'Unauthorized', type: 'unauthorized' } });
    }
    const route = `${req.method} ${path.replace(/^\/api\/v1/, '')}`;
    let m: RegExpMatchArray | null;
    if ((m = route.match(/^GET \/settings\/mcp-servers\/([^/]+)$/))) {
      const manifest = this.mcpServers.get(decodeURIComponent(m[1]!));
      if (!manifest) return send(res, 404, { error: { message: 'MCP server not found', type: 'not_found' } });
      return send(res, 200, { data: configured(manifest) });
    }
    if (route === 'POST /settings/mcp-servers' || route === 'PUT /settings/mcp-servers') {
      const manifest = (body as { manifest: Record<string, unknown> }).manifest;
      const name = String(manifest.name);
      if (req.method === 'POST' && this.mcpServers.has(name)) {
        return send(res, 409, {
          error: { message: `MCP server "${name}" already exists`, type: 'conflict' },
        });
      }
      this.mcpServers.set(name, manifest);
      return send(res, req.method === 'POST' ? 201 : 200, { data: configured(manifest) });
    }
    if (route === 'GET /agents') return send(res, 200, { data: [...this.agents.values()] });
    if (route === 'POST /agents') {
      const { name, manifest } = body as { name: string; manifest: Record<string, unknown> };
      if ([...this.agents.values()].some((a) => a.name === name)) {
        return send(res, 409, { error: { message: `Agent "${name}" already exists`, type: 'conflict' } });
      }
      const agent = { id: this.nextId('agent'), name, manifest };
      this.agents.set(agent.id, agent);
      return send(res, 201, { data: agent });
    }
    if ((m = route.match(/^PUT \/agents\/([^/]+)$/))) {
      const agent = this.agents.get(decodeURIComponent(m[1]!));
      if (!agent) return send(res, 404, { error: { message: 'Agent not found', type: 'not_found' } });
      agent.manifest = (body as { manifest: Record<string, unknown> }).manifest;
      return send(res, 200, { data: agent });
    }
    if (route === 'POST /sessions') {
      const name = (body as { agent: { name: string } }).agent.name;
      const agent = [...this.agents.values()].find((a) => a.name === name);
      if (!agent)
        return send(res, 404, { error: { message: `Agent "${name}" not found`, type: 'not_found' } });
      const id = this.nextId('session');
      const at = this.timestamp();
      const session: FakeSession = { id, agentName: name, createdAt: at, updatedAt: at, turns: [] };
      this.sessions.set(id, session);
      return send(res, 201, { data: this.sessionJson(session) });
    }
    if (route === 'GET /sessions') {
      // Newest first by updated_at (the documented default order).
      const all = [...this.sessions.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      return send(
        res,
        200,
        paged(
          all.map((x) => this.sessionJson(x)),
          url,
          LIST_PAGE_MAX,
        ),
      );
    }
    if ((m = route.match(/^GET \/sessions\/([^/]+)\/events$/))) {
      const session = this.sessions.get(decodeURIComponent(m[1]!));
      if (!session) return send(res, 404, { error: { message: 'Session not found', type: 'not_found' } });
      const items = session.turns.flatMap((turn) =>
        turn.persisted.map((event) => ({ turn_id: turn.id, event })),
      );
      return send(res, 200, paged(items.reverse(), url, 100));
    }
    if ((m = route.match(/^(GET|POST) \/sessions\/([^/]+)\/turns$/))) {
      const session = this.sessions.get(decodeURIComponent(m[2]!));
      if (!session) return send(res, 404, { error: { message: 'Session not found', type: 'not_found' } });
      if (m[1] === 'GET') {
        // Oldest first (created_at ascending), as a live harness lists them (OBSERVED.md).
        const ascending = [...session.turns].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
        return send(res, 200, paged(ascending.map(turnJson), url, LIST_PAGE_MAX));
      }
      return this.createTurn(session, decodeURIComponent(m[2]!), body as Record<string, unknown>, res);
    }
    if ((m = route.match(/^GET \/sessions\/([^/]+)\/turns\/([^/]+)(\/events|\/subscribe)?$/))) {
      const turn = this.turn(decodeURIComponent(m[2]!));
      if (!turn) return send(res, 404, { error: { message: 'Turn not found', type: 'not_found' } });
      if (!m[3]) return send(res, 200, { data: turnJson(turn) });
      if (m[3] === '/events') return this.listEvents(turn, url, res);
      const after = Number(url.searchParams.get('after_sequence_number') ?? -1);
      // Like a live harness, a subscription to a running turn stays open until its events come.
      await turn.played;
      return streamEvents(
        res,
        turn.stream.filter((e) => e.sequence > after),
      );
    }
    return send(res, 404, { error: { message: `No route ${route}`, type: 'not_found' } });
  }

  private listEvents(turn: FakeTurn, url: URL, res: ServerResponse): void {
    const pageSize = Math.min(
      Number(url.searchParams.get('limit') ?? 100),
      this.options.eventsPageSize ?? 100,
    );
    const start = Number(url.searchParams.get('page_token') ?? 0);
    const page = turn.persisted.slice(start, start + pageSize);
    const next = start + pageSize < turn.persisted.length ? String(start + pageSize) : undefined;
    send(res, 200, { data: page, pagination: { limit: pageSize, ...(next && { next_page_token: next }) } });
  }

  /**
   * Validates turn input like a live harness, then plays the next script. Without `previous_turn_id`
   * (or `auto`) the turn continues the session's last turn and must resolve what it waits for; with
   * the id of an earlier paused turn it replays that turn, whose old required_actions are accepted
   * again (OBSERVED.md, defect 1); with `none` pending approvals are skipped.
   */
  private async createTurn(
    session: FakeSession,
    sessionId: string,
    body: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<void> {
    const input = (body.input ?? []) as TurnInputItem[];
    const last = session.turns.at(-1);
    const named = body.previous_turn_id as string | undefined;
    let previous = last;
    let pending = last?.pending ?? [];
    if (named === 'none') pending = [];
    else if (named !== undefined && named !== 'auto') {
      previous = session.turns.find((t) => t.id === named);
      if (!previous)
        return send(res, 404, { error: { message: `Turn ${named} not found`, type: 'not_found' } });
      pending = previous === last ? previous.pending : previous.required;
    }
    const error = validateInput(input, pending);
    if (error) return send(res, error.status, { error: { message: error.message, type: 'invalid_request' } });
    const script = this.scripts.shift() ?? this.options.fallbackScript;
    if (!script) return send(res, 500, { error: { message: 'fake harness: no script for this turn' } });
    const turnId = `${this.nextId('turn')}.local`;
    let played = () => {};
    const turn: FakeTurn = {
      id: turnId,
      sessionId,
      previousTurnId: previous?.id ?? null,
      createdAt: this.timestamp(),
      input,
      state: { status: 'running' },
      stream: [],
      persisted: [],
      pending: [],
      required: [],
      played: new Promise((resolve) => (played = resolve)),
    };
    if (previous && pending.length > 0) previous.pending = [];
    session.turns.push(turn);
    session.updatedAt = turn.createdAt;
    try {
      const responses = this.options.executeApprovedCalls ? await this.decide(session, turn, input) : [];
      this.play(turn, [...responses, ...script({ turnId, input, previousTurnId: named })]);
    } finally {
      played();
    }
    session.updatedAt = this.timestamp();
    if (body.stream === false)
      return send(res, 200, { data: { ...turnJson(turn), state: { status: 'running' } } });
    const limit = this.options.dropStreamAfter;
    return streamEvents(
      res,
      limit === undefined ? turn.stream : turn.stream.slice(0, limit),
      limit !== undefined,
    );
  }

  private sessionJson(session: FakeSession) {
    const agent = [...this.agents.values()].find((a) => a.name === session.agentName);
    return {
      id: session.id,
      agent: { type: 'reference', id: agent?.id ?? '', name: session.agentName },
      title: null,
      created_by: 'local',
      created_at: session.createdAt,
      updated_at: session.updatedAt,
    };
  }

  /** Builds the turn's streamed and persisted events from its steps. */
  private play(turn: FakeTurn, steps: Step[]): void {
    let sequence = 0;
    const now = turn.createdAt;
    const emit = (event: Record<string, unknown>, persist: Record<string, unknown> | null = event) => {
      turn.stream.push({ sequence: sequence++, streamed: event });
      if (persist) turn.persisted.push(persist);
    };
    const created = {
      type: 'turn.created',
      id: this.nextId('ev'),
      turn_id: turn.id,
      previous_turn_id: turn.previousTurnId,
      input: turn.input,
      state: { status: 'running' },
      created_at: now,
      thread_id: null,
    };
    emit(created);
    emit({
      type: 'mcp.initialize',
      id: this.nextId('ev'),
      created_at: now,
      thread_id: 'main',
      mcp_servers: [],
    });
    const approvals: Record<string, unknown>[] = [];
    const callThreads = new Map<string, string>();
    let errorMessage: string | undefined;
    for (const step of steps) {
      const thread = 'thread' in step && step.thread ? step.thread : 'main';
      if (step.kind === 'message') {
        const id = this.nextId('msg');
        const calls = step.calls ?? [];
        for (const call of calls) callThreads.set(call.id, thread);
        const base = {
          type: 'model.message',
          id,
          thread_id: thread,
          created_at: now,
          content: null,
          tool_calls: [],
        };
        const merged = {
          ...base,
          content: step.text ?? null,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: `${call.server ?? 'sentinel'}__${call.name}`, arguments: argumentsText(call) },
            tool_info: toolInfo(call),
          })),
          finish_reason: calls.length ? 'tool_calls' : 'stop',
        };
        emit(base, merged);
        for (const delta of deltasOf(id, thread, step.text, calls)) emit(delta, null);
      } else if (step.kind === 'approval') {
        const event = {
          type: 'tool.approval_required',
          id: this.nextId('ev'),
          created_at: now,
          thread_id: thread,
          tool_calls: step.callIds.map((callId) => ({
            id: callId,
            source_event_id: this.sourceOf(turn, callId),
          })),
        };
        approvals.push(event);
        const calls = step.callIds.map((toolCallId) => ({ threadId: thread, toolCallId }));
        turn.pending.push(...calls);
        turn.required.push(...calls);
        emit(event);
      } else if (step.kind === 'tool.response') {
        emit({
          type: 'tool.response',
          id: this.nextId('ev'),
          created_at: now,
          thread_id: thread,
          tool_call_id: step.callId,
          content: step.content,
        });
      } else if (step.kind === 'thread.created') {
        emit({
          type: 'thread.created',
          id: this.nextId('ev'),
          created_at: now,
          thread_id: step.thread,
          title: step.title,
          agent_info: { type: 'dynamic', name: step.title, input: '' },
          parent: { thread_id: step.parent.thread, tool_call_id: step.parent.callId },
        });
      } else {
        errorMessage = step.message;
      }
    }
    if (turn.pending.length) {
      turn.pending.push(...(this.options.hiddenPending ?? []));
      turn.required.push(...(this.options.hiddenPending ?? []));
    }
    turn.state = errorMessage
      ? { status: 'error', message: errorMessage, completed_at: now }
      : {
          status: 'done',
          output: null,
          // The copies in required_actions were observed without created_at.
          required_actions: approvals.map(({ created_at: _, ...rest }) => rest),
          completed_at: now,
        };
    emit({ type: 'turn.done', id: this.nextId('ev'), created_at: now, thread_id: null, state: turn.state });
  }

  /** The tool.response of each decided call: allowed ones executed on their MCP server. */
  private async decide(session: FakeSession, turn: FakeTurn, input: TurnInputItem[]): Promise<Step[]> {
    const steps: Step[] = [];
    for (const item of input.filter((i) => i.type === 'user.tool_approval')) {
      const call = callOf(session.turns, item.tool_call_id!);
      const thread = item.thread_id;
      if (item.approval?.status !== 'allow') {
        const text = `{"error":"User denied tool call: ${item.approval?.reason || 'no reason provided'}"}`;
        steps.push({
          kind: 'tool.response',
          thread,
          callId: item.tool_call_id!,
          content: JSON.stringify({ error: [{ type: 'text', text }] }),
        });
        continue;
      }
      const connector = this.mcpServers.get(call.tool_info.server_name);
      if (!connector)
        throw new Error(`fake harness: no MCP server '${call.tool_info.server_name}' registered`);
      const auth = connector.auth as { headers?: Record<string, string> } | undefined;
      const client = new Client({ name: 'tfy-agent-mcp-client', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(String(connector.url)), {
          requestInit: { headers: auth?.headers ?? {} },
        }),
      );
      try {
        const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
        const result = await client.callTool({ name: call.tool_info.name, arguments: args });
        const content = (result.content as { type: string; text?: string }[])
          .map((part) => part.text ?? '')
          .join('\n');
        this.executed.push({
          name: call.tool_info.name,
          result,
          sessionId: session.id,
          turnId: turn.id,
          toolCallId: item.tool_call_id!,
          arguments: args,
        });
        steps.push({ kind: 'tool.response', thread, callId: item.tool_call_id!, content });
      } finally {
        await client.close();
      }
    }
    return steps;
  }

  /** The id of the message (this turn's or an earlier one's) that carried the call. */
  private sourceOf(turn: FakeTurn, callId: string): string {
    const session = this.sessions.get(turn.sessionId)!;
    for (const t of [...session.turns].reverse()) {
      const message = t.persisted.find(
        (e) => e.type === 'model.message' && (e.tool_calls as { id: string }[]).some((c) => c.id === callId),
      );
      if (message) return String(message.id);
    }
    throw new Error(`fake harness: no message carries ${callId}`);
  }
}

interface MergedCall {
  id: string;
  function: { name: string; arguments: string };
  tool_info: { name: string; server_name: string };
}

/** The merged tool call with this id in the session's persisted messages. */
function callOf(turns: FakeTurn[], callId: string): MergedCall {
  for (const turn of turns) {
    for (const event of turn.persisted) {
      const call = (event.tool_calls as MergedCall[] | undefined)?.find((c) => c.id === callId);
      if (event.type === 'model.message' && call) return call;
    }
  }
  throw new Error(`fake harness: no message carries ${callId}`);
}

function argumentsText(call: ScriptedCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function toolInfo(call: ScriptedCall) {
  const server = call.server ?? 'sentinel';
  return { type: 'mcp', name: call.name, server_id: `${server}-id`, server_name: server };
}

/**
 * Deltas as a live harness streams them: text in two pieces; per call, a first fragment with index,
 * id, name and the first half of the arguments, then one with the rest and tool_info; the last delta
 * carries finish_reason and usage.
 */
function deltasOf(id: string, thread: string, text: string | undefined, calls: ScriptedCall[]) {
  const deltas: Record<string, unknown>[] = [];
  const delta = (extra: Record<string, unknown>) =>
    deltas.push({ type: 'model.message.delta', id, thread_id: thread, ...extra });
  if (text) {
    const half = Math.ceil(text.length / 2);
    delta({ content: text.slice(0, half) });
    delta({ content: text.slice(half) });
  }
  calls.forEach((call, index) => {
    const args = argumentsText(call);
    const half = Math.ceil(args.length / 2);
    delta({
      tool_calls: [
        {
          index,
          id: call.id,
          type: 'function',
          function: { name: `${call.server ?? 'sentinel'}__${call.name}`, arguments: args.slice(0, half) },
        },
      ],
    });
    delta({ tool_calls: [{ index, function: { arguments: args.slice(half) }, tool_info: toolInfo(call) }] });
  });
  delta({
    content: null,
    finish_reason: calls.length ? 'tool_calls' : 'stop',
    usage: { input_tokens: 10, output_tokens: 5, input_tokens_breakdown: {} },
  });
  return deltas;
}

/** The live harness's answers to bad turn input (OBSERVED.md "Resume / deny / errors"). */
function validateInput(
  input: TurnInputItem[],
  pending: { threadId: string; toolCallId: string }[],
): { status: number; message: string } | undefined {
  const messages = input.filter((i) => i.type === 'user.message');
  const approvals = input.filter((i) => i.type === 'user.tool_approval');
  if (messages.length && approvals.length) {
    return {
      status: 400,
      message: 'input must not mix user messages with approval decisions or client-side tool responses',
    };
  }
  for (const approval of approvals) {
    if (approval.approval?.status !== 'allow' && approval.approval?.status !== 'deny') {
      return { status: 400, message: `invalid approval status "${approval.approval?.status}"` };
    }
  }
  if (pending.length === 0) {
    if (approvals.length)
      return { status: 422, message: `Unknown tool_call_id: ${approvals[0]!.tool_call_id}` };
    if (!messages.length) return { status: 422, message: 'input must not be empty' };
    return undefined;
  }
  if (messages.length)
    return { status: 422, message: 'Cannot send a user message while tool approvals are pending' };
  const seen = new Set<string>();
  for (const approval of approvals) {
    const match = pending.find((p) => p.toolCallId === approval.tool_call_id);
    if (!match || seen.has(approval.tool_call_id!)) {
      return { status: 422, message: `Unknown or duplicate tool_call_id: ${approval.tool_call_id}` };
    }
    if (match.threadId !== approval.thread_id) {
      return {
        status: 422,
        message: `tool_call_id ${approval.tool_call_id} does not belong to thread ${approval.thread_id}`,
      };
    }
    seen.add(approval.tool_call_id!);
  }
  const missing = pending.filter((p) => !seen.has(p.toolCallId)).map((p) => p.toolCallId);
  if (missing.length) {
    return {
      status: 422,
      message: `Send batch must resolve all pending tool calls (approve or deny each). Missing: ${missing.join(', ')}`,
    };
  }
  return undefined;
}

function configured(manifest: Record<string, unknown>) {
  // Header values are redacted on the way out, as the settings API does.
  const auth = manifest.auth as { type: string; headers?: Record<string, string> } | undefined;
  const redacted = auth?.headers
    ? { ...auth, headers: Object.fromEntries(Object.keys(auth.headers).map((k) => [k, '********'])) }
    : auth;
  return {
    name: manifest.name,
    manifest: { ...manifest, auth: redacted },
    auth_status: { status: 'authenticated' },
  };
}

function turnJson(turn: FakeTurn) {
  return {
    id: turn.id,
    session_id: turn.sessionId,
    previous_turn_id: turn.previousTurnId,
    input: turn.input,
    state: turn.state,
    created_at: turn.createdAt,
  };
}

/** One page of `items` (`page_token` is an offset), at most `max` per page, as token pagination. */
function paged<T>(items: T[], url: URL, max: number) {
  const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? max) || max, 1), max);
  const start = Number(url.searchParams.get('page_token') ?? 0);
  const next = start + limit < items.length ? String(start + limit) : undefined;
  return {
    data: items.slice(start, start + limit),
    pagination: { limit, ...(next && { next_page_token: next }) },
  };
}

/** Writes events as SSE in small pieces (frames split across writes), then ends the response. */
async function streamEvents(res: ServerResponse, events: StoredEvent[], abruptly = false): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { sequence, streamed } of events) {
    const frame = `data: ${JSON.stringify(streamed)}\nid: ${sequence}\n\n`;
    const cut = Math.floor(frame.length / 3);
    res.write(frame.slice(0, cut));
    await new Promise((resolve) => setImmediate(resolve));
    res.write(frame.slice(cut));
  }
  if (abruptly) res.socket?.destroy();
  else res.end();
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
