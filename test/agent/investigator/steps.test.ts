import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import type { ClassifiedResult, ToolCaller, ToolInfo } from '../../../agent/investigator/mcp-client.ts';
import type { Step } from '../../../agent/investigator/model.ts';
import { planStep, runStep, type StepContext } from '../../../agent/investigator/steps.ts';

const READS = ['get_deployment', 'list_pods'];
const CHANGES = ['rollback_deployment', 'scale_deployment'];

/**
 * A server stand-in with the gate's observable behaviour: change calls are held on first submission
 * (one request per tool) and executed on the identical retry once approved; reads run at once.
 */
class FakeServer implements ToolCaller {
  readonly log: string[] = [];
  readonly requests = new Map<string, ApprovalRequest>();
  executed: string[] = [];

  async tools(): Promise<Map<string, ToolInfo>> {
    return new Map(
      [...READS, ...CHANGES].map((name) => [
        name,
        { name, readOnly: READS.includes(name), supportsDryRun: !READS.includes(name) },
      ]),
    );
  }

  async call(tool: string): Promise<ClassifiedResult> {
    this.log.push(tool);
    if (READS.includes(tool))
      return { kind: 'result', text: `${tool} ok`, structured: { tool }, requestId: null, errorCode: null };
    const id = `apr_${tool}`;
    const request = this.requests.get(id);
    if (request?.status === 'approved') {
      request.status = 'executed';
      this.executed.push(tool);
      return {
        kind: 'result',
        text: `${tool} done`,
        structured: { status: 'applied' },
        requestId: id,
        errorCode: null,
      };
    }
    if (request?.status === 'denied') return { kind: 'declined', text: 'denied', requestId: id };
    this.requests.set(id, approvalRequest(id, tool));
    return { kind: 'held', text: 'Approval required', requestId: id, expiresAt: '2099-01-01T00:00:00.000Z' };
  }

  async close(): Promise<void> {}
}

function approvalRequest(id: string, tool: string): ApprovalRequest {
  return {
    id,
    status: 'pending',
    requester: 'investigator',
    created_by: 'investigator',
    cluster: null,
    tool,
    risk: 'destructive',
    arguments: {},
    requested_arguments: {},
    reason: null,
    policy: {
      rule: 'default:destructive',
      rules: [],
      reason: 'needs a human',
      validity: 'once',
      approvers: ['role:approver'],
    },
    preview: null,
    created_at: '2025-01-01T00:00:00.000Z',
    expires_at: '2099-01-01T00:00:00.000Z',
    decision: null,
    grant: null,
    executions: [],
  };
}

/** A context whose waiter answers each request with the given decision, logging the wait. */
function context(
  server: FakeServer,
  decisions: Record<string, 'allow' | 'deny'>,
  saves: Step[][] = [],
): StepContext & { saved: number } {
  const ctx = {
    saved: 0,
    caller: server,
    async waitForDecision(id: string) {
      server.log.push(`wait ${id}`);
      const request = server.requests.get(id)!;
      const decision = decisions[id];
      request.status = decision === 'allow' ? 'approved' : 'denied';
      request.decision = {
        decision: decision ?? 'deny',
        by: 'alice',
        at: '2025-01-01T00:01:00.000Z',
        reason: decision === 'allow' ? null : 'not now',
        admin_fallback: false,
      };
      return structuredClone(request);
    },
    async getApproval(id: string) {
      return structuredClone(server.requests.get(id)!);
    },
    save() {
      ctx.saved++;
      saves.push([]);
    },
    progress() {},
  };
  return ctx;
}

const call = (tool: string) => ({ tool, arguments: { namespace: 'shop', name: 'checkout' } });

describe('runStep (all or nothing)', () => {
  it('runs no call of the step before its held call is approved, then retries it and runs the rest', async () => {
    const server = new FakeServer();
    const step = await planStep(
      'remediate',
      [call('get_deployment'), call('rollback_deployment'), call('list_pods')],
      server,
    );
    const done = await runStep(step, context(server, { apr_rollback_deployment: 'allow' }));

    expect(server.log).toEqual([
      'rollback_deployment',
      'wait apr_rollback_deployment',
      'rollback_deployment',
      'get_deployment',
      'list_pods',
    ]);
    expect(done.status).toBe('done');
    expect(done.calls.map((c) => c.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(done.calls[1]).toMatchObject({
      approval_request_id: 'apr_rollback_deployment',
      text: 'rollback_deployment done',
    });
    expect(done.finished_at).not.toBeNull();
  });

  it('runs none of the step when the held call is denied', async () => {
    const server = new FakeServer();
    const step = await planStep(
      'remediate',
      [call('get_deployment'), call('rollback_deployment'), call('list_pods')],
      server,
    );
    const done = await runStep(step, context(server, { apr_rollback_deployment: 'deny' }));

    expect(server.log).toEqual(['rollback_deployment', 'wait apr_rollback_deployment']);
    expect(server.executed).toEqual([]);
    expect(done.status).toBe('declined');
    expect(done.calls.map((c) => c.status)).toEqual(['not_run', 'declined', 'not_run']);
    expect(done.calls[1]!.text).toBe('Approval request apr_rollback_deployment was denied by alice: not now');
  });

  it('does not execute an approved call when a sibling in the same step is denied', async () => {
    const server = new FakeServer();
    const step = await planStep('remediate', [call('rollback_deployment'), call('scale_deployment')], server);
    const done = await runStep(
      step,
      context(server, { apr_rollback_deployment: 'allow', apr_scale_deployment: 'deny' }),
    );

    expect(server.log).toEqual([
      'rollback_deployment',
      'scale_deployment',
      'wait apr_rollback_deployment',
      'wait apr_scale_deployment',
    ]);
    expect(server.executed).toEqual([]);
    expect(done.status).toBe('declined');
    expect(done.calls.map((c) => c.status)).toEqual(['approved', 'declined']);
  });

  it('saves after every transition, so a held step is on disk before the wait starts', async () => {
    const server = new FakeServer();
    const step = await planStep('remediate', [call('rollback_deployment')], server);
    const ctx = context(server, { apr_rollback_deployment: 'allow' });
    const states: string[] = [];
    ctx.save = () => states.push(`${step.status}:${step.calls[0]!.status}`);
    await runStep(step, ctx);
    expect(states).toEqual([
      'running:held',
      'awaiting_approval:held',
      'awaiting_approval:approved',
      'running:succeeded',
      'running:succeeded',
      'done:succeeded',
    ]);
  });

  it('resumes a held step by waiting again, without submitting the call a second time', async () => {
    const server = new FakeServer();
    const step = await planStep('remediate', [call('rollback_deployment')], server);
    await server.call('rollback_deployment'); // the first process submitted it, then died
    server.log.length = 0;
    Object.assign(step.calls[0]!, { status: 'held', approval_request_id: 'apr_rollback_deployment' });
    step.status = 'awaiting_approval';

    const done = await runStep(step, context(server, { apr_rollback_deployment: 'allow' }));
    expect(server.log).toEqual(['wait apr_rollback_deployment', 'rollback_deployment']);
    expect(done.status).toBe('done');
  });

  it('does not retry an approved call that the server shows already ran', async () => {
    const server = new FakeServer();
    const step = await planStep('remediate', [call('rollback_deployment')], server);
    const request = approvalRequest('apr_rollback_deployment', 'rollback_deployment');
    request.status = 'executed';
    request.executions = [
      {
        id: 'exe_1',
        status: 'succeeded',
        arguments: {},
        started_at: request.created_at,
        finished_at: request.created_at,
        outcome: 'Rolled back to revision 2',
      },
    ];
    server.requests.set(request.id, request);
    Object.assign(step.calls[0]!, { status: 'approved', approval_request_id: request.id });

    const done = await runStep(step, context(server, {}));
    expect(server.log).toEqual([]);
    expect(done.status).toBe('done');
    expect(done.calls[0]).toMatchObject({ status: 'succeeded', text: 'Rolled back to revision 2' });
  });

  /** A request another run of the same investigation is executing: `executed` after `reads` more reads. */
  function executingElsewhere(
    server: FakeServer,
    reads: number,
  ): { request: ApprovalRequest; read: () => ApprovalRequest } {
    const request = approvalRequest('apr_rollback_deployment', 'rollback_deployment');
    request.status = 'approved';
    server.requests.set(request.id, request);
    const execution = {
      id: 'exe_1',
      status: 'succeeded' as const,
      arguments: {},
      started_at: request.created_at,
      finished_at: request.created_at,
      outcome: 'Rolled back to revision 2',
    };
    let left = reads;
    const read = () => {
      if (request.status === 'executing' && left-- <= 0) {
        request.status = 'executed';
        request.executions = [execution];
      }
      return structuredClone(request);
    };
    return { request, read };
  }

  it('when another run of the investigation executes the approved call first, reports its verified result, not a failure', async () => {
    const server = new FakeServer();
    const { request, read } = executingElsewhere(server, 2);
    // The other terminal's retry won the race: ours is answered "executing now, not run a second time".
    server.call = async (tool: string) => {
      server.log.push(tool);
      request.status = 'executing';
      return {
        kind: 'in_progress',
        text: `This approved ${tool} call is executing now under approval request ${request.id}; it was not run a second time.`,
        requestId: request.id,
      };
    };
    const step = await planStep('remediate', [call('rollback_deployment')], server);
    Object.assign(step.calls[0]!, { status: 'approved', approval_request_id: request.id });
    const lines: string[] = [];
    const ctx = { ...context(server, {}), getApproval: async () => read(), pollMs: 1 };
    ctx.progress = (line: string) => lines.push(line);

    const done = await runStep(step, ctx);
    expect(server.log).toEqual(['rollback_deployment']);
    expect(done.status).toBe('done');
    expect(done.calls[0]).toMatchObject({ status: 'succeeded', text: 'Rolled back to revision 2' });
    expect(lines.join('\n')).toContain(
      'Approval request apr_rollback_deployment: the call was executed once, by another run of this investigation (not a second time here): Rolled back to revision 2',
    );
  });

  it('when the approved call is executing in another run as this one resumes, waits for its result instead of failing', async () => {
    const server = new FakeServer();
    const { request, read } = executingElsewhere(server, 1);
    request.status = 'executing';
    const step = await planStep('remediate', [call('rollback_deployment')], server);
    Object.assign(step.calls[0]!, { status: 'approved', approval_request_id: request.id });
    const ctx = { ...context(server, {}), getApproval: async () => read(), pollMs: 1 };

    const done = await runStep(step, ctx);
    expect(server.log).toEqual([]);
    expect(done.status).toBe('done');
    expect(done.calls[0]).toMatchObject({ status: 'succeeded', text: 'Rolled back to revision 2' });
  });

  it('names a tool the server does not offer before running anything', async () => {
    const server = new FakeServer();
    await expect(planStep('x', [call('delete_everything')], server)).rejects.toThrow(
      "The Sentinel server does not offer the tool 'delete_everything'",
    );
  });
});
