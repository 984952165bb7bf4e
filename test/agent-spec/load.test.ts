import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_AGENT_SPEC_PATH, loadAgentSpec, sentinelServerEntry } from '../../agent-spec/load.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('agent spec loader', () => {
  it('loads the shipped spec with the instructions inlined from instructions.md', () => {
    const spec = loadAgentSpec();
    const markdown = readFileSync(join(DEFAULT_AGENT_SPEC_PATH, '..', 'instructions.md'), 'utf8');
    expect(spec.instructions).toBe(markdown);
    expect(spec.model.name).toMatch(/^[^/]+\/.+$/);
    const entry = sentinelServerEntry(spec);
    expect(entry).toMatchObject({ name: 'sentinel', enable_tools: ['@all'], preload: true });
    expect(entry.require_approval_for_tools?.slice(0, 2)).toEqual(['@write', '@destructive']);
  });

  it('covers the runbook the model needs', () => {
    const instructions = loadAgentSpec().instructions!;
    for (const rule of [
      /Investigate read-only first/,
      /evidence/,
      /`dry_run: true`/,
      /approval request id/,
      /retry the identical call/,
      /Never retry a denied call/,
    ]) {
      expect(instructions).toMatch(rule);
    }
  });

  describe('with a broken spec', () => {
    let dir: string;
    let cleanup: () => void;
    beforeEach(() => ({ dir, cleanup } = tempDataDir()));
    afterEach(() => cleanup());

    const write = (spec: unknown) => {
      const path = join(dir, 'spec.json');
      writeFileSync(path, JSON.stringify(spec));
      return path;
    };
    const valid = {
      model: { name: 'openai/gpt-5.2' },
      instructions: 'Be careful.',
      mcp_servers: [{ name: 'sentinel', require_approval_for_tools: ['@write'] }],
    };

    it('rejects a misspelled key, naming it', () => {
      const path = write({
        ...valid,
        mcp_servers: [{ name: 'sentinel', require_approval_for_tool: ['@write'] }],
      });
      expect(() => loadAgentSpec(path)).toThrow(/mcp_servers\.0: unknown key\(s\) require_approval_for_tool/);
    });

    it('rejects a missing model and a missing instructions file', () => {
      expect(() => loadAgentSpec(write({ ...valid, model: undefined }))).toThrow(/: model: /);
      expect(() => loadAgentSpec(write({ ...valid, instructions: { $file: 'nope.md' } }))).toThrow(
        /Cannot read the agent instructions .*nope\.md: file not found\./,
      );
    });

    it('accepts inline instructions and says when the sentinel entry is missing', () => {
      expect(loadAgentSpec(write(valid)).instructions).toBe('Be careful.');
      expect(() => sentinelServerEntry(loadAgentSpec(write({ ...valid, mcp_servers: [] })))).toThrow(
        "The agent spec has no mcp_servers entry named 'sentinel'.",
      );
    });
  });
});
