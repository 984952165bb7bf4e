/**
 * A stand-in Sentinel server for harness-mode tests, until the real server is on main: an MCP
 * endpoint (stateless Streamable HTTP, a real SDK server) with tools that do and do not support dry
 * runs, and `POST /approvals` answering with the gate's shapes (`server/gate/approval-request.ts`):
 * an approved request for a named requester, a 200 for calls the policy allows, a 403 refusal.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { matchedArguments } from '../../server/gate/canonical.ts';
import {
  ApprovalListQuerySchema,
  CreateApprovalBodySchema,
  clientRefKey,
  type ApprovalList,
  type ApiError,
  type ApprovalNotRequired,
  type ApprovalRequest,
} from '../../server/gate/approval-request.ts';

export const APPROVER_TOKEN = 'approver-token';

/** The annotations the real server derives from risk `destructive` (tools/define-tool.ts). */
const DESTRUCTIVE = { readOnlyHint: false, destructiveHint: true };

/** Starts the stand-in on 127.0.0.1 and an ephemeral port; `url` is its MCP endpoint. */
export async function startSentinelStandIn(timeline?: string[]) {
  const toolCalls: { name: string; args: Record<string, unknown>; authorization: string | undefined }[] = [];
  const approvals: { body: unknown; authorization: string | undefined }[] = [];
  /** The requests `POST /approvals` created, as `GET /approvals` lists them. */
  const requests: ApprovalRequest[] = [];
  const app = express();
  app.use(express.json());
  app.post('/mcp', async (req, res) => {
    if (req.headers.authorization !== `Bearer ${APPROVER_TOKEN}`) {
      res.status(401).json({ error: { message: 'unknown token' } });
      return;
    }
    const server = new McpServer({ name: 'sentinel-stand-in', version: '1' });
    server.registerTool(
      'rollback_deployment',
      {
        annotations: DESTRUCTIVE,
        inputSchema: {
          namespace: z.string(),
          name: z.string(),
          to_revision: z.number().optional(),
          dry_run: z.boolean().optional(),
        },
      },
      async (args) => {
        toolCalls.push({ name: 'rollback_deployment', args, authorization: req.headers.authorization });
        return {
          content: [{ type: 'text', text: `would roll back ${args.namespace}/${args.name}: revision 7 → 6` }],
          structuredContent: {
            resolved_arguments: {
              namespace: args.namespace,
              name: args.name,
              to_revision: args.to_revision ?? 6,
            },
            summary: `Roll back Deployment ${args.namespace}/${args.name} from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)`,
          },
        };
      },
    );
    server.registerTool(
      'restart_service',
      { annotations: DESTRUCTIVE, inputSchema: { namespace: z.string(), name: z.string() } },
      async (args) => {
        toolCalls.push({ name: 'restart_service', args, authorization: req.headers.authorization });
        return { content: [{ type: 'text', text: 'restarted' }] };
      },
    );
    server.registerTool(
      'scale_deployment',
      { annotations: DESTRUCTIVE, inputSchema: { replicas: z.number(), dry_run: z.boolean().optional() } },
      async () => ({
        content: [{ type: 'text', text: 'replicas must be at most 50' }],
        isError: true,
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.get('/mcp', (_req, res) => void res.status(405).end());
  app.post('/approvals', (req, res) => {
    approvals.push({ body: req.body, authorization: req.headers.authorization });
    const body = CreateApprovalBodySchema.parse(req.body);
    timeline?.push(`sentinel POST /approvals ${body.tool}`);
    if (body.arguments.namespace === 'kube-system') {
      const error: ApiError = {
        error: {
          code: 'forbidden',
          message: "policy rule 'system-namespaces' denies changes in kube-system",
        },
      };
      res.status(403).json(error);
      return;
    }
    // One request per harness tool call, as the gate keeps it: the first answer, 200.
    const refKey = body.client_ref && clientRefKey(body.client_ref);
    const first = refKey && requests.find((r) => r.client_ref && clientRefKey(r.client_ref) === refKey);
    if (first) {
      // The terminal's answer decides a request put up with `ask` (as the gate does).
      if (first.status === 'pending' && body.decision !== 'ask') {
        const at = new Date().toISOString();
        first.status = body.decision === 'deny' ? 'denied' : 'approved';
        first.decision = {
          decision: body.decision ?? 'allow',
          by: 'local',
          at,
          reason: body.reason ?? null,
          admin_fallback: false,
        };
        first.grant = body.decision === 'deny' ? null : { validity: 'once', expires_at: at };
        res.status(201).json(first);
        return;
      }
      res.status(200).json(first);
      return;
    }
    if (body.arguments.dry_run === true) {
      const allowed: ApprovalNotRequired = { approval_required: false, decision: 'allow', rule: 'dry-runs' };
      res.status(200).json(allowed);
      return;
    }
    const now = new Date().toISOString();
    const created: ApprovalRequest = {
      id: `apr_${String(approvals.length).padStart(16, '0')}`,
      status: body.decision === 'ask' ? 'pending' : body.decision === 'deny' ? 'denied' : 'approved',
      requester: body.requester,
      created_by: 'local',
      client_ref: body.client_ref ?? null,
      cluster: { context: 'kind-sentinel', server: 'https://127.0.0.1:6443' },
      tool: body.tool,
      risk: 'destructive',
      // Resolved as the rollback tool would: the default target made concrete.
      arguments:
        body.tool === 'rollback_deployment'
          ? { to_revision: 6, ...matchedArguments(body.arguments) }
          : matchedArguments(body.arguments),
      requested_arguments: matchedArguments(body.arguments),
      reason: null,
      policy: {
        rule: 'default:destructive',
        rules: [],
        reason: 'destructive change',
        validity: 'once',
        approvers: ['role:approver'],
      },
      preview: null,
      created_at: now,
      expires_at: now,
      decision:
        body.decision === 'ask'
          ? null
          : {
              decision: body.decision ?? 'allow',
              by: 'local',
              at: now,
              reason: body.reason ?? null,
              admin_fallback: false,
            },
      grant:
        body.decision === 'allow' || body.decision === undefined
          ? { validity: 'once', expires_at: now }
          : null,
      executions: [],
    };
    requests.push(created);
    res.status(201).json(created);
  });
  app.get('/approvals/:id', (req, res) => {
    const found = requests.find((r) => r.id === req.params.id);
    if (found) res.json(found);
    else
      res
        .status(404)
        .json({ error: { code: 'not_found', message: `No approval request '${req.params.id}'.` } });
  });
  app.get('/approvals', (req, res) => {
    const query = ApprovalListQuerySchema.parse(req.query);
    const list: ApprovalList = {
      approvals: requests.filter(
        (r) =>
          (!query.status || r.status === query.status) &&
          (!query.requester || r.requester === query.requester) &&
          (!query.tool || r.tool === query.tool) &&
          (!query.client_ref || (r.client_ref && clientRefKey(r.client_ref)) === query.client_ref),
      ),
    };
    res.json(list);
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    toolCalls,
    approvals,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
