import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrueForgeClient } from '../../trueforge/client.ts';
import { apiBase } from '../../trueforge/http.ts';
import type { StreamedEvent } from '../../trueforge/sse.ts';
import { SentinelError } from '../../tools/errors.ts';
import { FakeTrueForge, type TurnScript } from '../helpers/fake-trueforge.ts';

const pausedTurn: TurnScript = () => [
  {
    kind: 'message',
    text: 'I will roll back.',
    calls: [
      { id: 'call_1', name: 'rollback_deployment', arguments: { namespace: 'shop', name: 'checkout' } },
    ],
  },
  { kind: 'approval', callIds: ['call_1'] },
];

async function collect(events: AsyncIterable<StreamedEvent>): Promise<StreamedEvent[]> {
  const all: StreamedEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function failure(promise: Promise<unknown>): Promise<SentinelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SentinelError);
  return error as SentinelError;
}

describe('TrueForgeClient against the fake harness', () => {
  let harness: FakeTrueForge;
  let client: TrueForgeClient;

  beforeAll(async () => {
    harness = await new FakeTrueForge({ token: 'tf-secret', eventsPageSize: 3 }).start();
    client = new TrueForgeClient({ url: `${harness.url}/api/v1/`, token: 'tf-secret' });
    harness.agents.set('agent-0', { id: 'agent-0', name: 'sentinel', manifest: { model: { name: 'm' } } });
  });
  afterAll(() => harness.close());

  it('streams a turn: SSE frames split across writes, sequence numbers from id:', async () => {
    const session = await client.createSession('sentinel');
    harness.script(pausedTurn);
    const events = await collect(
      client.streamTurn(session.id, { input: [{ type: 'user.message', content: 'checkout 502' }] }),
    );
    expect(events.map((e) => e.event.type)).toEqual([
      'turn.created',
      'mcp.initialize',
      'model.message',
      ...Array<string>(5).fill('model.message.delta'),
      'tool.approval_required',
      'turn.done',
    ]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i));
    expect(events[0]!.event.thread_id).toBeNull();
    const done = events.at(-1)!.event as unknown as {
      state: { status: string; required_actions: unknown[] };
    };
    expect(done.state.status).toBe('done');
    expect(done.state.required_actions).toHaveLength(1);
    expect(harness.requests.at(-1)).toMatchObject({
      method: 'POST',
      body: { input: [{ type: 'user.message', content: 'checkout 502' }], stream: true },
      authorization: 'Bearer tf-secret',
    });
  });

  it('reads a turn back: state, all pages of persisted events, latest turn, and a replay after a sequence number', async () => {
    const session = await client.createSession('sentinel');
    harness.script(pausedTurn);
    const turn = await client.createTurn(session.id, { input: [{ type: 'user.message', content: 'x' }] });
    expect(turn.state.status).toBe('running'); // JSON mode answers at once
    expect(harness.requests.at(-1)!.body).toMatchObject({ stream: false });

    const state = (await client.getTurn(session.id, turn.id)).state;
    expect(state.status === 'done' && state.required_actions[0]).toMatchObject({
      type: 'tool.approval_required',
      tool_calls: [{ id: 'call_1' }],
    });
    const events = await client.listTurnEvents(session.id, turn.id);
    // 6 persisted events over pages of 3: no deltas, the merged message instead.
    expect(events.map((e) => e.type)).toEqual([
      'turn.created',
      'mcp.initialize',
      'model.message',
      'tool.approval_required',
      'turn.done',
    ]);
    expect(harness.requests.filter((r) => r.path.endsWith('/events')).map((r) => r.query.page_token)).toEqual(
      [undefined, '3'],
    );
    expect((await client.latestTurn(session.id))?.id).toBe(turn.id);

    const replay = await collect(client.subscribeTurn(session.id, turn.id, 7));
    expect(replay.map((e) => e.sequence)).toEqual([8, 9]);
    expect(harness.requests.at(-1)!.query).toEqual({ after_sequence_number: '7' });
  });

  it('finds the newest turn by reading every page of the oldest-first list, never by limit=1', async () => {
    const session = await client.createSession('sentinel');
    // 27 turns: two pages of at most 25, oldest first, as a live harness lists them.
    const answer: TurnScript = () => [{ kind: 'message', text: 'ok' }];
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) {
      harness.script(answer);
      const events = await collect(
        client.streamTurn(session.id, { input: [{ type: 'user.message', content: `q${i}` }] }),
      );
      ids.push((events[0]!.event as unknown as { turn_id: string }).turn_id);
    }
    const before = harness.requests.length;
    const listed = await client.listTurns(session.id);
    expect(listed.map((t) => t.id)).toEqual(ids); // ascending
    expect((await client.latestTurn(session.id))?.id).toBe(ids[26]);
    const lists = harness.requests.slice(before).filter((r) => r.path.endsWith('/turns'));
    expect(lists.every((r) => r.query.limit === '25')).toBe(true);
    expect(lists.map((r) => r.query.page_token)).toEqual([undefined, '25', undefined, '25']);
    // The fake answers limit=1 as the live harness does: the FIRST turn.
    const first = await fetch(`${harness.url}/api/v1/sessions/${session.id}/turns?limit=1`, {
      headers: { authorization: 'Bearer tf-secret' },
    }).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
    expect(first.data.map((t) => t.id)).toEqual([ids[0]]);
  });

  it("keeps an answered paused turn's old required_actions, and replays it when previous_turn_id names it", async () => {
    const session = await client.createSession('sentinel');
    harness.script(
      pausedTurn,
      () => [{ kind: 'message', text: 'done' }],
      () => [],
    );
    const paused = await collect(
      client.streamTurn(session.id, { input: [{ type: 'user.message', content: 'go' }] }),
    );
    const pausedId = (paused[0]!.event as unknown as { turn_id: string }).turn_id;
    const allow = {
      type: 'user.tool_approval' as const,
      thread_id: 'main',
      tool_call_id: 'call_1',
      approval: { status: 'allow' as const },
    };
    await collect(client.streamTurn(session.id, { input: [allow], previous_turn_id: pausedId }));
    const old = await client.getTurn(session.id, pausedId);
    expect(old.state.status === 'done' && old.state.required_actions).toHaveLength(1);
    const latest = await client.latestTurn(session.id);
    expect(latest?.id).not.toBe(pausedId);
    expect(latest?.state.status === 'done' && latest.state.required_actions).toEqual([]);
    // Answering again on the session's tip is refused (nothing pending there) ...
    const again = await failure(collect(client.streamTurn(session.id, { input: [allow] })));
    expect(again.message).toContain('answered 422');
    // ... but naming the old paused turn replays it, a deny flipped or not (defect 1).
    const replay = await collect(
      client.streamTurn(session.id, { input: [allow], previous_turn_id: pausedId }),
    );
    expect(replay[0]!.event).toMatchObject({ type: 'turn.created', previous_turn_id: pausedId });
  });

  it('turns 400 (mixed input) and 422 (partial batch) into clear errors quoting the harness', async () => {
    const session = await client.createSession('sentinel');
    harness.script(() => [
      {
        kind: 'message',
        calls: [
          { id: 'c1', name: 'restart_service', arguments: {} },
          { id: 'c2', name: 'scale_deployment', arguments: {} },
        ],
      },
      { kind: 'approval', callIds: ['c1', 'c2'] },
    ]);
    await collect(client.streamTurn(session.id, { input: [{ type: 'user.message', content: 'go' }] }));
    const approve = (id: string) => ({
      type: 'user.tool_approval' as const,
      thread_id: 'main',
      tool_call_id: id,
      approval: { status: 'allow' as const },
    });

    const mixed = await failure(
      collect(
        client.streamTurn(session.id, {
          input: [{ type: 'user.message', content: 'also' }, approve('c1'), approve('c2')],
        }),
      ),
    );
    expect(mixed.code).toBe('invalid_input');
    expect(mixed.message).toBe(
      `TrueForge harness answered 400 to POST /api/v1/sessions/${session.id}/turns: input must not mix user messages with approval decisions or client-side tool responses. One turn carries either a user message or approval decisions, never both.`,
    );
    expect(mixed.stack).toBeDefined(); // the CLI prints only the message
    expect(mixed.message).not.toMatch(/\n|at .*\.ts/);

    const partial = await failure(collect(client.streamTurn(session.id, { input: [approve('c1')] })));
    expect(partial.code).toBe('conflict');
    expect(partial.message).toContain('answered 422');
    expect(partial.message).toContain(
      'Send batch must resolve all pending tool calls (approve or deny each). Missing: c2.',
    );
    expect(partial.message).toContain('The harness still waits for a decision on every pending tool call');
  });

  it('rejects turn input that breaks the contract before sending it', async () => {
    const before = harness.requests.length;
    const error = await failure(
      client.createTurn('s', {
        input: [
          { type: 'user.tool_approval', thread_id: 'main', tool_call_id: '', approval: { status: 'allow' } },
        ],
      }),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('input.0.tool_call_id');
    expect(harness.requests.length).toBe(before);
  });

  it('says what to do on 401, on 404 for an unknown agent, and on 409 for a taken name', async () => {
    const anonymous = new TrueForgeClient({ url: harness.url });
    const unauthorized = await failure(anonymous.listAgents());
    expect(unauthorized.code).toBe('unauthorized');
    expect(unauthorized.message).toContain('set SENTINEL_HARNESS_TOKEN');

    const missing = await failure(client.createSession('nobody'));
    expect(missing.code).toBe('not_found');
    expect(missing.message).toBe(
      'TrueForge harness answered 404 to POST /api/v1/sessions: Agent "nobody" not found. No agent named \'nobody\' is registered; run `npx sentinel harness register` first.',
    );

    const taken = await failure(client.createAgent('sentinel', { model: { name: 'm' } }));
    expect(taken.code).toBe('conflict');
    expect(taken.message).toContain('409');
    expect(await client.getMcpServer('absent')).toBeUndefined();
  });
});

describe('TrueForgeClient transport failures', () => {
  let server: Server;
  let url: string;
  let behaviour: (res: ServerResponse) => void;

  beforeAll(async () => {
    // No keep-alive: each test's misbehaviour must not leave a half-closed socket for the next one.
    server = createServer((_req, res) => {
      res.setHeader('connection', 'close');
      behaviour(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reports a 5xx with the body text and advice to retry', async () => {
    behaviour = (res) =>
      res.writeHead(503, { 'content-type': 'text/plain' }).end('upstream model provider down');
    const error = await failure(new TrueForgeClient({ url }).listAgents());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(
      'TrueForge harness answered 503 to GET /api/v1/agents: upstream model provider down. Try again shortly.',
    );
  });

  it('times out a JSON request that never answers', async () => {
    behaviour = () => undefined;
    const error = await failure(new TrueForgeClient({ url, timeoutMs: 150 }).listAgents());
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('did not answer GET');
    expect(error.message).toContain('0.15 s');
  });

  it('times out an event stream that goes silent', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'data: {"type":"turn.created","id":"e0","turn_id":"t1","previous_turn_id":null,"thread_id":null}\nid: 0\n\n',
      );
    };
    const client = new TrueForgeClient({ url, streamIdleTimeoutMs: 150 });
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const { event } of client.subscribeTurn('s1', 't1')) seen.push(event.type);
      })(),
    );
    expect(seen).toEqual(['turn.created']);
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('sent nothing on /api/v1/sessions/s1/turns/t1/subscribe for 0.15 s');
  });

  it('rejects an answer that is not the contract: not JSON, wrong shape, a malformed event', async () => {
    behaviour = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    expect((await failure(new TrueForgeClient({ url }).listAgents())).message).toContain('not JSON');

    behaviour = (res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[{"name":"x"}]}');
    expect((await failure(new TrueForgeClient({ url }).listAgents())).message).toContain('data.0.id');

    behaviour = (res) =>
      res
        .writeHead(200, { 'content-type': 'text/event-stream' })
        .end('data: {"type":"tool.approval_required","id":"e1"}\nid: 1\n\n');
    const bad = await failure(collect(new TrueForgeClient({ url }).subscribeTurn('s', 't')));
    expect(bad.message).toContain('malformed tool.approval_required');
  });

  it('names the unreachable harness and the flag to fix', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(new TrueForgeClient({ url: `http://127.0.0.1:${port}` }).listAgents());
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('ECONNREFUSED');
    expect(error.message).toContain('--harness / SENTINEL_HARNESS_URL');
  });

  it('accepts the harness URL with or without /api/v1 and refuses a non-http one', () => {
    expect(apiBase('http://h:8000').href).toBe('http://h:8000/api/v1/');
    expect(apiBase('http://h:8000/tf/api/v1/').href).toBe('http://h:8000/tf/api/v1/');
    expect(() => apiBase('ftp://h')).toThrow(/must be an http or https URL/);
    expect(() => apiBase('not a url')).toThrow(/--harness 'not a url' is not a URL/);
  });
});
