/**
 * The preview of an approved retry only re-checks the approved effect (`ToolContext.recheck`), so a
 * tool may skip the reads that only feed warnings: the approver read them in the preview they
 * decided on, which the request keeps. Every preview a human will decide on is a full one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import type { Identity } from '../../../server/pipeline.ts';
import type { Tool, ToolContext } from '../../../tools/index.ts';
import { createTestPipeline, identities, type TestPipeline } from './fixtures/pipeline.ts';
import { fixtureTools } from './fixtures/tools.ts';

const scale = { namespace: 'shop', name: 'checkout', replicas: 5 };
/** The warning the wrapped tool reads evidence for, skipped on a re-check. */
const EVIDENCE = 'evidence: the target was healthy last week';

let p: TestPipeline;
afterEach(async () => {
  await p.close();
});

/** The fixture tools, scale_deployment's runs recorded and its evidence warning skipped on a re-check. */
function recordingTools(): { tools: Tool[]; runs: { dryRun: boolean; recheck: boolean }[] } {
  const runs: { dryRun: boolean; recheck: boolean }[] = [];
  const tools = fixtureTools.map((tool) =>
    tool.name !== 'scale_deployment'
      ? tool
      : Object.freeze({
          ...tool,
          handler: async (args: never, context: ToolContext) => {
            runs.push({ dryRun: context.dryRun, recheck: context.recheck === true });
            const output = await tool.handler(args, context);
            if (!context.dryRun || context.recheck) return output;
            const structured = output.structured as { warnings: unknown[] };
            return { ...output, structured: { ...structured, warnings: [...structured.warnings, EVIDENCE] } };
          },
        }),
  ) as Tool[];
  return { tools, runs };
}

function pipeline(): { runs: { dryRun: boolean; recheck: boolean }[]; known: Record<string, Identity> } {
  const { tools, runs } = recordingTools();
  const known = { ...identities };
  p = createTestPipeline({ tools, identities: known });
  return { runs, known };
}

async function hold(): Promise<string> {
  const result = await p.call('agent', 'scale_deployment', scale);
  return PendingResultMetaSchema.parse(result._meta).approval_request_id;
}

describe("an approved retry's preview", () => {
  it('is a re-check: the held call previews in full, the retry re-checks and executes once', async () => {
    const { runs } = pipeline();
    const id = await hold();
    expect(runs).toEqual([{ dryRun: true, recheck: false }]);
    expect((await p.store.get(id))?.preview?.warnings).toContain(EVIDENCE);
    await p.gate.approvals.approve(id, identities.alice!, {});
    runs.length = 0;
    const run = await p.call('agent', 'scale_deployment', scale);
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(runs).toEqual([
      { dryRun: true, recheck: true },
      { dryRun: false, recheck: false },
    ]);
  });

  it('is a full preview again when the grant turns out void: the new request carries every warning', async () => {
    const { runs, known } = pipeline();
    const id = await hold();
    await p.gate.approvals.approve(id, known.bob!, {});
    delete known.bob;
    runs.length = 0;
    const retry = await p.call('agent', 'scale_deployment', scale);
    const again = PendingResultMetaSchema.parse(retry._meta).approval_request_id;
    expect(again).not.toBe(id);
    expect(runs).toEqual([
      { dryRun: true, recheck: true },
      { dryRun: true, recheck: false },
    ]);
    expect((await p.store.get(again))?.preview?.warnings).toContain(EVIDENCE);
    expect(p.cluster.mutations).toEqual([]);
  });

  it('of a call that is not approved is a full preview', async () => {
    const { runs } = pipeline();
    await hold();
    await hold();
    expect(runs).toEqual([
      { dryRun: true, recheck: false },
      { dryRun: true, recheck: false },
    ]);
  });
});
