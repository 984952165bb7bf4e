import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, toolInput, type Tool } from '../../tools/index.ts';
import type { KubeReader, KubeWriter } from '../../tools/kube/types.ts';
import { createCallReads, forgettingWriter, runTool } from '../../server/run-tool.ts';

const context = {
  kube: {} as KubeReader,
  cluster: { context: 'kind', server: 'https://127.0.0.1:6443' },
  signal: new AbortController().signal,
  dryRun: false,
};

const echo = defineTool({
  name: 'echo_output',
  title: 'Echo',
  description: 'Returns its argument as structured output.',
  risk: 'read',
  input: toolInput({ value: z.unknown() }),
  output: z.object({ value: z.number() }),
  handler: async (args) => ({ text: 'echo', structured: { value: args.value } }),
}) as unknown as Tool;

/** A reader counting its `getDeployment` calls; each answer a new object. */
function countingReader() {
  let calls = 0;
  const reader = Object.freeze({
    async getDeployment(namespace: string, name: string) {
      calls += 1;
      return { metadata: { namespace, name, resourceVersion: String(calls) } };
    },
  }) as unknown as KubeReader;
  return { reader, calls: () => calls };
}

describe('runTool', () => {
  it('answers the MCP result of the handler, checked against the output schema', async () => {
    expect(await runTool(echo, { value: 1 }, context)).toEqual({
      content: [{ type: 'text', text: 'echo' }],
      structuredContent: { value: 1 },
    });
    await expect(runTool(echo, { value: 'one' }, context)).rejects.toThrow(
      /produced output that does not match its schema/,
    );
  });
});

describe('the reads of one call', () => {
  it('replays a preview read to the execution once, as a copy, then reads live', async () => {
    const { reader, calls } = countingReader();
    const reads = createCallReads();
    const previewed = await reads.recording(reader).getDeployment('shop', 'web');
    previewed.metadata!.name = 'changed by the preview';
    const replaying = reads.replaying(reader);
    expect(await replaying.getDeployment('shop', 'web')).toEqual({
      metadata: { namespace: 'shop', name: 'web', resourceVersion: '1' },
    });
    expect(calls()).toBe(1);
    expect((await replaying.getDeployment('shop', 'web')).metadata?.resourceVersion).toBe('2');
    expect((await replaying.getDeployment('shop', 'other')).metadata?.resourceVersion).toBe('3');
  });

  it('reads live after a write', async () => {
    const { reader, calls } = countingReader();
    const reads = createCallReads();
    await reads.recording(reader).getDeployment('shop', 'web');
    const writer = forgettingWriter(
      Object.freeze({ patchDeploymentJson: async () => ({}) }) as unknown as KubeWriter,
      reads,
    );
    await writer.patchDeploymentJson('shop', 'web', [], { fieldManager: 'sentinel' });
    await reads.replaying(reader).getDeployment('shop', 'web');
    expect(calls()).toBe(2);
  });
});
