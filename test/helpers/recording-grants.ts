/**
 * Stand-ins for harness mode's two collaborators at the terminal: a `ServerGrantClient` that
 * records what it is asked (previews, grants, denials) on a shared timeline, and a prompter that
 * answers from a list. The tools' risks are the registry's (what the Sentinel server publishes in
 * its tools/list annotations) unless a test says otherwise.
 */
import type { ApprovalPrompter } from '../../agent/harness/prompter.ts';
import type {
  ClientRef,
  HeldCall,
  PreviewLike,
  SentinelToolCall,
  ServerGrantClient,
} from '../../agent/harness/server-grants.ts';
import { allTools, type Risk } from '../../tools/index.ts';
import { SentinelError } from '../../tools/errors.ts';

export interface RecordingGrantsOptions {
  /** Why the server refuses to grant `call` (a 403), or undefined to grant it. */
  refuse?: (call: SentinelToolCall) => string | undefined;
  /** The risk `risk(tool)` answers; default the registry's. */
  risk?: (tool: string) => Risk | undefined;
  /** `risk(tool)` throws `unavailable` with this message (the server cannot be reached). */
  unreachable?: string;
  /** What `hold` answers; default undefined (nothing put up for the page: the terminal alone decides). */
  hold?: (call: SentinelToolCall, ref: ClientRef) => HeldCall | undefined;
  /** What `held(id)` answers on its `n`th read (from 1); default throws `not_found`. */
  held?: (id: string, n: number) => HeldCall;
}

const REGISTRY_RISKS = new Map(allTools.map((tool) => [tool.name, tool.risk]));

export class RecordingGrants implements ServerGrantClient {
  readonly preapproved: SentinelToolCall[] = [];
  readonly previewed: SentinelToolCall[] = [];
  readonly heldCalls: SentinelToolCall[] = [];
  readonly denied: { call: SentinelToolCall; reason: string; ref: ClientRef }[] = [];
  private readonly timeline: string[];
  private readonly options: RecordingGrantsOptions;
  private reads = 0;

  constructor(timeline: string[], options: RecordingGrantsOptions = {}) {
    this.timeline = timeline;
    this.options = options;
  }

  async preapprove(call: SentinelToolCall) {
    this.timeline.push(`grant ${call.tool}`);
    const refusal = this.options.refuse?.(call);
    if (refusal) throw new SentinelError('forbidden', refusal);
    this.preapproved.push(call);
    return { id: `apr_${this.preapproved.length}` };
  }

  async recordDenial(call: SentinelToolCall, reason: string, ref: ClientRef) {
    this.timeline.push(`deny ${call.tool}`);
    this.denied.push({ call, reason, ref });
    return {
      id: `apr_d${this.denied.length}`,
      decision: 'deny' as const,
      by: 'alice',
      at: new Date().toISOString(),
      status: 'denied',
      reason,
      existing: false,
    };
  }

  async answerFor(): Promise<undefined> {
    return undefined;
  }

  async hold(call: SentinelToolCall, ref: ClientRef): Promise<HeldCall | undefined> {
    this.heldCalls.push(call);
    return this.options.hold?.(call, ref);
  }

  async held(id: string): Promise<HeldCall> {
    this.reads += 1;
    if (!this.options.held) throw new SentinelError('not_found', `no held request ${id}`);
    return this.options.held(id, this.reads);
  }

  async risk(tool: string): Promise<Risk | undefined> {
    if (this.options.unreachable) throw new SentinelError('unavailable', this.options.unreachable);
    return this.options.risk ? this.options.risk(tool) : REGISTRY_RISKS.get(tool);
  }

  async preview(call: SentinelToolCall): Promise<PreviewLike | undefined> {
    this.previewed.push(call);
    if (call.tool === 'rollback_deployment') {
      return {
        text: 'Deployment shop/checkout: revision 7 → 6\ncontainer checkout: image registry.example/shop/checkout:2.4.1 → registry.example/shop/checkout:2.4.0',
        structured: {
          tool: 'rollback_deployment',
          status: 'preview',
          summary:
            'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
        },
      };
    }
    if (call.tool === 'scale_deployment') {
      const replicas = call.arguments.replicas;
      return {
        text: `replicas 2 → ${String(replicas)}`,
        structured: {
          tool: 'scale_deployment',
          status: 'preview',
          summary: `Scale Deployment shop/${String(call.arguments.name)} from 2 to ${String(replicas)} replicas`,
        },
      };
    }
    return undefined;
  }

  async close() {}
}

/** Answers y/N questions and free-text questions from a list; undefined once the list runs out (end of input). */
export function scriptedPrompter(answers: string[]): ApprovalPrompter & { asked: string[] } {
  const asked: string[] = [];
  const next = async (question: string) => {
    asked.push(question);
    return answers.shift();
  };
  return {
    asked,
    ask: next,
    confirm: async (question) => {
      const answer = await next(question);
      return answer === undefined ? undefined : answer === 'y';
    },
    close: () => undefined,
  };
}
