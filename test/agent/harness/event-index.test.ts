import { describe, expect, it } from 'vitest';
import { EventIndex } from '../../../agent/harness/event-index.ts';
import { TurnEventSchema, type TurnEvent } from '../../../trueforge/schemas.ts';

const ev = (value: Record<string, unknown>): TurnEvent => TurnEventSchema.parse(value);
const mcp = (name: string) => ({ type: 'mcp', name, server_id: 'srv-1', server_name: 'sentinel' });
/** A `model.message` of thread `thread` (default main). */
const message = (id: string, fields: Record<string, unknown> = {}, thread = 'main') =>
  ev({ type: 'model.message', id, thread_id: thread, created_at: 't', ...fields });
/** A `model.message.delta` of thread `thread` (default main). */
const delta = (id: string, fields: Record<string, unknown> = {}, thread = 'main') =>
  ev({ type: 'model.message.delta', id, thread_id: thread, ...fields });

describe('EventIndex', () => {
  it('merges deltas into the base message by tool-call index', () => {
    const index = new EventIndex();
    index.add(message('m1', { content: null, tool_calls: [] }));
    index.add(delta('m1', { content: 'Rolling ' }));
    index.add(delta('m1', { content: 'back.' }));
    // Two calls interleaved: fragments of index 1 arrive before index 0 is complete.
    index.add(
      delta('m1', {
        tool_calls: [
          {
            index: 0,
            id: 'call_a',
            type: 'function',
            function: { name: 'sentinel__rollback_deployment', arguments: '{"namesp' },
          },
        ],
      }),
    );
    index.add(
      delta('m1', {
        tool_calls: [
          {
            index: 1,
            id: 'call_b',
            function: { name: 'sentinel__scale_deployment', arguments: '{"replicas":' },
          },
        ],
      }),
    );
    index.add(
      delta('m1', {
        tool_calls: [
          { index: 0, function: { arguments: 'ace":"shop"}' }, tool_info: mcp('rollback_deployment') },
          { index: 1, function: { arguments: '3}' }, tool_info: mcp('scale_deployment') },
        ],
      }),
    );
    index.add(delta('m1', { finish_reason: 'tool_calls' }));

    const merged = index.message('m1')!;
    expect(merged.content).toBe('Rolling back.');
    expect(merged.finish_reason).toBe('tool_calls');
    expect(merged.tool_calls).toEqual([
      {
        id: 'call_a',
        type: 'function',
        function: { name: 'sentinel__rollback_deployment', arguments: '{"namespace":"shop"}' },
        tool_info: mcp('rollback_deployment'),
      },
      {
        id: 'call_b',
        function: { name: 'sentinel__scale_deployment', arguments: '{"replicas":3}' },
        tool_info: mcp('scale_deployment'),
      },
    ]);
    expect(index.toolCall('m1', 'call_b')?.function.arguments).toBe('{"replicas":3}');
    expect(index.findToolCall('call_a')?.tool_info?.name).toBe('rollback_deployment');
    expect(index.toolCall('m1', 'nope')).toBeUndefined();
  });

  it('keeps threads apart: a subagent delta without its own base joins the latest message of its thread', () => {
    const index = new EventIndex();
    index.add(message('main-1', { content: 'main text' }));
    index.add(
      ev({
        type: 'thread.created',
        id: 'e1',
        thread_id: 'sub-1',
        title: 'rollout checker',
        parent: { thread_id: 'main', tool_call_id: 'call_spawn' },
      }),
    );
    index.add(message('sub-msg', {}, 'sub-1'));
    // A delta numbered on its own (no base with its id) must not land in thread main.
    index.add(
      delta(
        'sub-delta-7',
        {
          tool_calls: [{ index: 0, id: 'call_s', function: { name: 'x__restart_service', arguments: '{}' } }],
        },
        'sub-1',
      ),
    );
    expect(index.message('sub-msg')?.tool_calls?.[0]?.id).toBe('call_s');
    expect(index.message('main-1')?.tool_calls).toBeUndefined();
    expect(index.message('main-1')?.content).toBe('main text');
    expect(index.thread('sub-1')).toEqual({
      threadId: 'sub-1',
      title: 'rollout checker',
      parent: { threadId: 'main', toolCallId: 'call_spawn' },
    });
  });

  it('indexes every event by id, turn events with a null thread', () => {
    const index = new EventIndex();
    const created = ev({
      type: 'turn.created',
      id: 'e0',
      turn_id: 't1.local',
      previous_turn_id: null,
      thread_id: null,
      state: { status: 'running' },
      created_at: 't',
    });
    const other = ev({ type: 'mcp.initialize', id: 'e1', thread_id: 'main', mcp_servers: [] });
    index.addAll([created, other]);
    expect(index.get('e0')).toEqual(created);
    expect(index.get('e1')).toEqual(other);
    expect(index.message('e1')).toBeUndefined();
  });

  it('lets a complete persisted message replace the streamed one, but an empty base does not wipe deltas', () => {
    const index = new EventIndex();
    index.add(
      delta('m1', { tool_calls: [{ index: 0, id: 'c1', function: { name: 'n', arguments: '{"a":' } }] }),
    );
    index.add(message('m1', { content: null, tool_calls: [] }));
    expect(index.toolCall('m1', 'c1')?.function.arguments).toBe('{"a":');
    const persisted = ev({
      type: 'model.message',
      id: 'm1',
      thread_id: 'main',
      created_at: 't',
      tool_calls: [
        { id: 'c1', type: 'function', function: { name: 'n', arguments: '{"a":1}' }, tool_info: mcp('n') },
      ],
    });
    index.add(persisted);
    expect(index.toolCall('m1', 'c1')?.function.arguments).toBe('{"a":1}');
    // The stored copy is the index's own: merging later deltas does not edit the caller's object.
    index.add(delta('m1', { tool_calls: [{ index: 0, function: { arguments: 'X' } }] }));
    expect(
      (persisted as unknown as { tool_calls: { function: { arguments: string } }[] }).tool_calls[0]!.function
        .arguments,
    ).toBe('{"a":1}');
  });

  it('rejects a malformed known event but keeps unknown event types whole', () => {
    expect(
      TurnEventSchema.safeParse({ type: 'tool.approval_required', id: 'e', thread_id: 'main' }).success,
    ).toBe(false);
    const future = { type: 'sandbox.created', id: 'e9', thread_id: null, sandbox_id: 'sb', extra: { a: 1 } };
    expect(TurnEventSchema.parse(future)).toEqual(future);
  });
});
