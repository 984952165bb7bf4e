/**
 * The policy judges what a call resolves to, not only how it was spelled: a restart named through a
 * Service, and a rollback whose target revision is left to the default, against the simulator with
 * the production remediation tools. Counts what the cluster received.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type MutationRecord, type Simulator } from '../../../deploy/sim/index.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from './fixtures/serve.ts';

let sim: Simulator;
const data = tempDataDir();
const kubeconfig = join(data.dir, 'kubeconfig');
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  // Another Service in front of shop/checkout's Pods, named unlike the Deployment.
  sim.cluster.createObject({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web-storefront', namespace: 'shop' },
    spec: { selector: { app: 'checkout' }, ports: [{ name: 'http', port: 80 }] },
  });
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

let server: GateServer | undefined;
let agent: Client | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  agent = server = undefined;
});

async function serve(policy: string): Promise<Client> {
  server = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools, policy });
  agent = await connectClient(server.url, server.tokens.agent);
  return agent;
}

/** Writes to Deployment shop/checkout the simulator received so far. */
const writesToCheckout = () =>
  sim.mutationLog.filter(
    (m: MutationRecord) => m.resource === 'deployments.apps' && m.name === 'checkout' && m.verb !== 'create',
  ).length;

/** restart_service named through Service shop/web-storefront (the Deployment behind it: checkout). */
const restartThroughService = async (client: Client) =>
  (await client.callTool({
    name: 'restart_service',
    arguments: { namespace: 'shop', name: 'web-storefront' },
  })) as CallToolResult;

const statusOf = (result: CallToolResult) => (result._meta as { approval_status?: string })?.approval_status;

describe('policy against the resolved call', { timeout: 240_000 }, () => {
  it('holds a restart an ask rule matches by Service name, recording the Deployment behind it', async () => {
    const client = await serve(`version: 1
rules:
  - name: web-restarts
    tool: restart_service
    args: { name: { glob: 'web-*' } }
    decision: ask
    validity: { window: 1h }
`);
    const before = writesToCheckout();
    const result = await restartThroughService(client);
    expect(statusOf(result)).toBe('pending');
    expect(writesToCheckout()).toBe(before);
    const id = PendingResultMetaSchema.parse(result._meta).approval_request_id;
    const request = await server!.api(server!.tokens.alice, 'GET', `/approvals/${id}`);
    expect(request.body.arguments).toEqual({ namespace: 'shop', name: 'checkout' });
    // Destructive tools cannot be allowed (policy floor); a restart is held whichever rule asks.
    expect(request.body.status).toBe('pending');
  });

  it('denies a restart through a Service when a deny rule names the Deployment behind it', async () => {
    const client = await serve(`version: 1
rules:
  - name: checkout-restarts
    tool: restart_service
    args: { name: checkout }
    decision: deny
    reason: The checkout team restarts checkout.
`);
    const before = writesToCheckout();
    const result = await restartThroughService(client);
    expect(result.isError).toBe(true);
    expect(statusOf(result)).toBe('denied');
    expect(result._meta).toMatchObject({ policy_rule: 'checkout-restarts' });
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('The checkout team restarts checkout.');
    expect(text).toContain('"name":"checkout"');
    expect(writesToCheckout()).toBe(before);
    expect(await server!.api(server!.tokens.alice, 'GET', '/approvals')).toMatchObject({
      body: { approvals: [] },
    });
  });

  it('denies a rollback whose default target is a revision a deny rule covers', async () => {
    const client = await serve(`version: 1
rules:
  - name: old-revisions
    tool: rollback_deployment
    args: { to_revision: { max: 2 } }
    decision: deny
    reason: Revisions 2 and older are withdrawn.
`);
    const before = writesToCheckout();
    const result = (await client.callTool({
      name: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'checkout' },
    })) as CallToolResult;
    expect(statusOf(result)).toBe('denied');
    expect(result._meta).toMatchObject({ policy_rule: 'old-revisions' });
    expect(writesToCheckout()).toBe(before);
  });

  it('runs a call both spellings of which the policy asks for, once approved, and executes the resolved call', async () => {
    const client = await serve(`version: 1
rules:
  - name: checkout-restarts
    tool: restart_service
    args: { name: { in: [checkout, web-storefront] } }
    decision: ask
`);
    const before = writesToCheckout();
    const held = await restartThroughService(client);
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
    expect((await server!.api(server!.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
    const result = await restartThroughService(client);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'applied',
      resolved_arguments: { namespace: 'shop', name: 'checkout' },
    });
    expect(writesToCheckout()).toBe(before + 1);
  });
});
