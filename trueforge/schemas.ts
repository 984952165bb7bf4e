/**
 * zod schemas for the parts of the TrueForge harness HTTP API that Sentinel uses, derived from
 * `../shared/harness/openapi.json` (component names kept: `Agent`, `ConfiguredMCPServer`, `Turn`,
 * `ModelMessageEvent`, ...). Where a live harness behaved differently
 * (`../shared/harness/OBSERVED.md`), the observed behaviour wins and the difference is noted here.
 *
 * Response objects are loose (unknown keys kept): the harness adds fields between versions, and an
 * event re-read later must keep everything it carried.
 */
import { z } from 'zod';

/** Every JSON response body is wrapped as `{"data": ...}` (OBSERVED.md "Registration"). */
export function dataEnvelope<T extends z.ZodType>(schema: T) {
  return z.object({ data: schema });
}

/** `RequestErrorResponse`: the body of every 4xx/5xx answer. */
export const RequestErrorResponseSchema = z.object({
  error: z.looseObject({
    message: z.string(),
    type: z.string().optional(),
    code: z.string().nullish(),
    param: z.string().nullish(),
  }),
});
export type RequestErrorResponse = z.infer<typeof RequestErrorResponseSchema>;

/** `TokenPagination` of list endpoints; `next_page_token` absent on the last page. */
export const TokenPaginationSchema = z.looseObject({
  limit: z.number().int().positive(),
  next_page_token: z.string().optional(),
});

// ---- Registration ------------------------------------------------------------------------------

/** `AgentSpec`: only `model` is required; the rest is owned by `agent-spec/` and passed through. */
export const AgentSpecSchema = z.looseObject({
  model: z.looseObject({ name: z.string().min(1) }),
  instructions: z.string().optional(),
  mcp_servers: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/** `Agent`: a registered agent with its immutable id. */
export const AgentSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  manifest: AgentSpecSchema,
});
export type Agent = z.infer<typeof AgentSchema>;

/** `MCPServerManifest` with header auth, the only kind Sentinel registers. */
export const McpServerManifestSchema = z.looseObject({
  type: z.literal('remote'),
  name: z.string(),
  url: z.string(),
  description: z.string(),
  auth: z.looseObject({ type: z.string(), headers: z.record(z.string(), z.string()).optional() }).optional(),
});
export type McpServerManifest = z.infer<typeof McpServerManifestSchema>;

/** `ConfiguredMCPServer`: a connector as the settings API returns it (header values redacted). */
export const ConfiguredMcpServerSchema = z.looseObject({
  name: z.string(),
  manifest: McpServerManifestSchema,
  auth_status: z.looseObject({ status: z.string() }),
});
export type ConfiguredMcpServer = z.infer<typeof ConfiguredMcpServerSchema>;

/** `Session`: only the id is used. */
export const SessionSchema = z.looseObject({ id: z.string().min(1) });
export type Session = z.infer<typeof SessionSchema>;

// ---- Tool calls and events ---------------------------------------------------------------------

/** `ToolInfo`: where a tool call goes (`mcp` server tool or a harness system tool). */
export const ToolInfoSchema = z.union([
  z.looseObject({
    type: z.literal('mcp'),
    name: z.string(),
    server_id: z.string(),
    server_name: z.string(),
  }),
  z.looseObject({ type: z.string(), name: z.string() }),
]);
export type ToolInfo = z.infer<typeof ToolInfoSchema>;

/**
 * `ToolCall` of a merged `model.message`. openapi.json requires `tool_info`, `function.name` and
 * `function.arguments`; a base message seen on the stream before its deltas may lack them, so they
 * are optional here and filled by the event index.
 */
export const ToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }),
  tool_info: ToolInfoSchema.optional(),
});
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** `ExtendedChunkDeltaToolCall`: one fragment of a streamed tool call, keyed by `index`. */
export const ToolCallDeltaSchema = z.looseObject({
  index: z.number().int().min(0),
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string().optional(), arguments: z.string().optional() }).optional(),
  tool_info: ToolInfoSchema.optional(),
});
export type ToolCallDelta = z.infer<typeof ToolCallDeltaSchema>;

/** `ModelMessageContent`: a string, content parts, or null. */
const MessageContentSchema = z
  .union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))])
  .nullish();

/** `ModelMessageEvent`: the base message (streamed) or the merged message (persisted events). */
export const ModelMessageEventSchema = z.looseObject({
  type: z.literal('model.message'),
  id: z.string(),
  thread_id: z.string(),
  created_at: z.string().optional(),
  content: MessageContentSchema,
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallSchema).optional(),
  finish_reason: z.string().nullish(),
});
export type ModelMessageEvent = z.infer<typeof ModelMessageEventSchema>;

/** `ModelMessageDeltaEvent`: a fragment merged into the base message with the same `id`. */
export const ModelMessageDeltaEventSchema = z.looseObject({
  type: z.literal('model.message.delta'),
  id: z.string(),
  thread_id: z.string(),
  content: z.string().nullish(),
  reasoning_content: z.string().optional(),
  tool_calls: z.array(ToolCallDeltaSchema).optional(),
  finish_reason: z.string().nullish(),
  usage: z.looseObject({}).optional(),
});
export type ModelMessageDeltaEvent = z.infer<typeof ModelMessageDeltaEventSchema>;

/** `ToolCallRef`: an approval names a call only by id and the event that carried it. */
export const ToolCallRefSchema = z.looseObject({ id: z.string(), source_event_id: z.string() });
export type ToolCallRef = z.infer<typeof ToolCallRefSchema>;

/**
 * `ToolApprovalRequiredEvent`. openapi.json requires `created_at`; the copies inside a turn's
 * `state.required_actions` were observed without it (OBSERVED.md "Cold reload"), so it is optional.
 */
export const ToolApprovalRequiredEventSchema = z.looseObject({
  type: z.literal('tool.approval_required'),
  id: z.string(),
  thread_id: z.string(),
  created_at: z.string().optional(),
  tool_calls: z.array(ToolCallRefSchema),
});
export type ToolApprovalRequiredEvent = z.infer<typeof ToolApprovalRequiredEventSchema>;

/** `ActionRequiredEvent`: what a paused turn waits for; only approvals are handled by Sentinel. */
export const RequiredActionSchema = z.union([
  ToolApprovalRequiredEventSchema,
  z.looseObject({
    type: z.string().refine((type) => type !== 'tool.approval_required'),
    id: z.string(),
    thread_id: z.string().nullish(),
  }),
]);
export type RequiredAction = z.infer<typeof RequiredActionSchema>;

/** `TurnState`, discriminated by `status`. */
export const TurnStateSchema = z.discriminatedUnion('status', [
  z.looseObject({ status: z.literal('running') }),
  z.looseObject({
    status: z.literal('done'),
    output: ModelMessageEventSchema.nullish(),
    required_actions: z.array(RequiredActionSchema),
  }),
  z.looseObject({ status: z.literal('cancelled'), reason: z.unknown().optional() }),
  z.looseObject({ status: z.literal('error'), message: z.string() }),
]);
export type TurnState = z.infer<typeof TurnStateSchema>;

/** `Turn`. */
export const TurnSchema = z.looseObject({
  id: z.string(),
  session_id: z.string().optional(),
  previous_turn_id: z.string().nullish(),
  state: TurnStateSchema,
  created_at: z.string().optional(),
});
export type Turn = z.infer<typeof TurnSchema>;

/** `TurnCreatedEvent`: `thread_id` is null on `turn.*` events (OBSERVED.md). */
export const TurnCreatedEventSchema = z.looseObject({
  type: z.literal('turn.created'),
  id: z.string(),
  turn_id: z.string(),
  previous_turn_id: z.string().nullish(),
  thread_id: z.string().nullable(),
});

/** `TurnDoneEvent`: the final state of the turn. */
export const TurnDoneEventSchema = z.looseObject({
  type: z.literal('turn.done'),
  id: z.string(),
  thread_id: z.string().nullable(),
  state: TurnStateSchema,
});
export type TurnDoneEvent = z.infer<typeof TurnDoneEventSchema>;

/** `ToolResponseEvent`: the result of a call, as text. */
export const ToolResponseEventSchema = z.looseObject({
  type: z.literal('tool.response'),
  id: z.string(),
  thread_id: z.string(),
  tool_call_id: z.string(),
  content: z.string(),
});

/** `ThreadCreatedEvent`: a subagent thread started by a tool call in its parent thread. */
export const ThreadCreatedEventSchema = z.looseObject({
  type: z.literal('thread.created'),
  id: z.string(),
  thread_id: z.string(),
  title: z.string().optional(),
  parent: z.looseObject({ thread_id: z.string(), tool_call_id: z.string() }).optional(),
});

/** Any other event type (mcp.initialize, thread.done, sandbox.created, ...), kept as is. */
export const OtherEventSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  thread_id: z.string().nullish(),
});

/** The events Sentinel reads, validated against the schema of their own `type`. */
export const KnownTurnEventSchema = z.discriminatedUnion('type', [
  TurnCreatedEventSchema,
  TurnDoneEventSchema,
  ModelMessageEventSchema,
  ModelMessageDeltaEventSchema,
  ToolApprovalRequiredEventSchema,
  ToolResponseEventSchema,
  ThreadCreatedEventSchema,
]);
export type KnownTurnEvent = z.infer<typeof KnownTurnEventSchema>;
export type KnownTurnEventType = KnownTurnEvent['type'];
const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(
  KnownTurnEventSchema.options.map((o) => o.shape.type.value),
);

/**
 * `TurnStreamingEvent` / `SessionEvent`: any event, kept whole. A known type must match its own
 * schema (a malformed `model.message` is an error, not an "other" event); unknown types
 * (`mcp.initialize`, `thread.done`, `sandbox.created`, future ones) pass through. Narrow with
 * `isEvent`.
 */
export const TurnEventSchema = OtherEventSchema.superRefine((event, ctx) => {
  if (!KNOWN_EVENT_TYPES.has(event.type)) return;
  const parsed = KnownTurnEventSchema.safeParse(event);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, code: 'custom' });
});
export type TurnEvent = z.infer<typeof TurnEventSchema>;

/** Narrows an event validated by `TurnEventSchema` to the known event of `type`. */
export function isEvent<T extends KnownTurnEventType>(
  event: TurnEvent,
  type: T,
): event is TurnEvent & Extract<KnownTurnEvent, { type: T }> {
  return event.type === type;
}

/** `ListTurnEventsResponse`: persisted events (merged messages, no deltas), paginated. */
export const ListTurnEventsResponseSchema = z.object({
  data: z.array(TurnEventSchema),
  pagination: TokenPaginationSchema.optional(),
});

/** `ListTurnsResponse`: documented newest first; a live harness lists oldest first (OBSERVED.md). */
export const ListTurnsResponseSchema = z.object({
  data: z.array(TurnSchema),
  pagination: TokenPaginationSchema.optional(),
});

// ---- Turn input (request bodies) ---------------------------------------------------------------

/** `ApprovalDecision`: allow, or deny with an optional reason the model will see. */
export const ApprovalDecisionSchema = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('allow') }),
  z.strictObject({ status: z.literal('deny'), reason: z.string().optional() }),
]);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** `UserToolApprovalEvent`: the decision on one pending call of one thread. */
export const UserToolApprovalSchema = z.strictObject({
  type: z.literal('user.tool_approval'),
  thread_id: z.string().min(1),
  tool_call_id: z.string().min(1),
  approval: ApprovalDecisionSchema,
});
export type UserToolApproval = z.infer<typeof UserToolApprovalSchema>;

/** `UserMessage` with text content. */
export const UserMessageSchema = z.strictObject({
  type: z.literal('user.message'),
  content: z.string().min(1),
});
export type UserMessage = z.infer<typeof UserMessageSchema>;

/**
 * `CreateTurnRequest`. A live harness rejects mixing `user.message` with approvals (400) and a batch
 * that does not resolve every pending call (422), so callers send one kind per turn.
 */
export const CreateTurnRequestSchema = z.strictObject({
  input: z.array(z.union([UserMessageSchema, UserToolApprovalSchema])),
  previous_turn_id: z.string().min(1).optional(),
  stream: z.boolean().optional(),
});
export type CreateTurnRequest = z.infer<typeof CreateTurnRequestSchema>;
