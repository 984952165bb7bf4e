import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SentinelServerClient, sentinelEndpoints } from '../../../agent/harness/sentinel-server.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { APPROVER_TOKEN, startSentinelStandIn } from '../../helpers/sentinel-stand-in.ts';

describe('SentinelServerClient', () => {
  let standIn: Awaited<ReturnType<typeof startSentinelStandIn>>;
  let url: string;

  beforeAll(async () => {
    standIn = await startSentinelStandIn();
    url = standIn.url;
  });
  afterAll(() => standIn.close());

  it('creates the approved request for requester trueforge with the exact call and the approver token', async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    const grant = await client.preapprove({
      tool: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
    });
    expect(grant).toEqual({ id: 'apr_0000000000000001' });
    expect(standIn.approvals.at(-1)).toEqual({
      body: {
        requester: 'trueforge',
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
      },
      authorization: `Bearer ${APPROVER_TOKEN}`,
    });
  });

  it('reports a call the policy allows without approval (200) as needing no grant', async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    expect(
      await client.preapprove({
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'checkout', dry_run: true },
      }),
    ).toEqual({ id: undefined, allowedByRule: 'dry-runs' });
  });

  it('reuses an unused grant for the same resolved call instead of creating a second one', async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    try {
      const call = { tool: 'rollback_deployment', arguments: { namespace: 'shop', name: 'cart' } };
      const preview = await client.preview(call);
      const first = await client.preapprove(call, preview);
      expect(first.reused).toBeUndefined();
      const posts = standIn.approvals.length;
      // The same call again (the free-text reason does not count), e.g. after the harness rejected the answer.
      const again = { ...call, arguments: { ...call.arguments, reason: 'still broken' } };
      expect(await client.preapprove(again, await client.preview(again))).toEqual({
        id: first.id,
        reused: true,
      });
      // Another target revision is another call.
      const other = { ...call, arguments: { ...call.arguments, to_revision: 5 } };
      expect((await client.preapprove(other, await client.preview(other))).id).not.toBe(first.id);
      // Once the grant is used it is not offered again.
      standIn.requests.find((r) => r.id === first.id)!.status = 'executed';
      expect((await client.preapprove(call, preview)).id).not.toBe(first.id);
      expect(standIn.approvals.length).toBe(posts + 2);
      // Without a dry run, the call as requested is compared.
      const restart = { tool: 'restart_service', arguments: { namespace: 'shop', name: 'cart' } };
      const restartGrant = await client.preapprove(restart);
      expect(await client.preapprove(restart)).toEqual({ id: restartGrant.id, reused: true });
    } finally {
      await client.close();
    }
  });

  it("reads each tool's risk from its tools/list annotations, and what a held request needs typed", async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    try {
      expect(await client.risk('rollback_deployment')).toBe('destructive');
      // Listed without hints, or not listed: the server does not say (the caller fails closed).
      expect(await client.risk('not_a_tool')).toBeUndefined();
      const ref = { harness_url: 'http://h', session_id: 's', turn_id: 't', tool_call_id: 'call_risk' };
      const held = await client.hold(
        { tool: 'rollback_deployment', arguments: { namespace: 'shop', name: 'checkout' } },
        ref,
      );
      expect(held).toMatchObject({ status: 'pending', confirmation: { expected: 'checkout' } });
    } finally {
      await client.close();
    }
  });

  it("quotes the server's refusal", async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    const error = await client
      .preapprove({ tool: 'restart_service', arguments: { namespace: 'kube-system', name: 'coredns' } })
      .catch((e: unknown) => e as SentinelError);
    expect(error).toBeInstanceOf(SentinelError);
    expect((error as SentinelError).code).toBe('forbidden');
    expect((error as SentinelError).message).toBe(
      "policy rule 'system-namespaces' denies changes in kube-system",
    );
  });

  it('previews through MCP with dry_run: true, and never calls a tool that has no dry run', async () => {
    const client = new SentinelServerClient({ url, token: APPROVER_TOKEN });
    const callsBefore = standIn.toolCalls.length;
    try {
      const preview = await client.preview({
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop', name: 'checkout' },
      });
      expect(preview).toEqual({
        text: 'would roll back shop/checkout: revision 7 → 6',
        structured: {
          resolved_arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
          summary:
            'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
        },
      });
      expect(
        await client.preview({ tool: 'restart_service', arguments: { namespace: 'shop', name: 'checkout' } }),
      ).toBeUndefined();
      expect(standIn.toolCalls.slice(callsBefore)).toEqual([
        {
          name: 'rollback_deployment',
          args: { namespace: 'shop', name: 'checkout', dry_run: true },
          authorization: `Bearer ${APPROVER_TOKEN}`,
        },
      ]);
      const failed = await client
        .preview({ tool: 'scale_deployment', arguments: { replicas: 500 } })
        .catch((e: unknown) => e);
      expect((failed as SentinelError).message).toBe(
        'The dry run of scale_deployment failed: replicas must be at most 50',
      );
    } finally {
      await client.close();
    }
  });

  it('says which server it cannot use and how to fix it', async () => {
    const client = new SentinelServerClient({ url, token: 'wrong' });
    const error = await client
      .preview({ tool: 'rollback_deployment', arguments: {} })
      .catch((e: unknown) => e as SentinelError);
    expect((error as SentinelError).code).toBe('unavailable');
    expect((error as SentinelError).message).toMatch(
      /^Cannot use the Sentinel server at http:\/\/127\.0\.0\.1:\d+\/mcp \(.*\); check --server and SENTINEL_TOKEN\.$/,
    );
    await client.close();
  });

  it('takes the server as its MCP URL or its base URL, and refuses anything else', async () => {
    const base = new SentinelServerClient({ url: url.replace(/\/mcp$/, '/'), token: APPROVER_TOKEN });
    try {
      expect(await base.preview({ tool: 'restart_service', arguments: {} })).toBeUndefined(); // listed over MCP
      expect(
        await base.preapprove({ tool: 'restart_service', arguments: { namespace: 'shop', name: 'web' } }),
      ).toMatchObject({
        id: expect.stringMatching(/^apr_/),
      });
    } finally {
      await base.close();
    }
    expect(sentinelEndpoints('https://ops.example/sentinel/mcp/')).toEqual({
      mcp: new URL('https://ops.example/sentinel/mcp'),
      approvals: new URL('https://ops.example/sentinel/approvals'),
    });
    expect(() => new SentinelServerClient({ url: 'nope', token: 't' })).toThrow(
      /--server 'nope' is not an http\(s\) URL/,
    );
  });
});
