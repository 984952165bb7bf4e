/**
 * The selector helper against the TrueForge harness's own truth table: every row, both functions.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  DEFAULT_DISABLE_TOOLS,
  DEFAULT_ENABLE_TOOLS,
  DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS,
  isToolAllowed,
  requiresApproval,
} from '../../agent-spec/selectors.ts';

interface Truth {
  defaults: { require_approval_for_tools: string[]; enable_tools: string[]; disable_tools: string[] };
  requiresApproval: {
    tool: string;
    annotations: Record<string, unknown> | null;
    annotationsCase: string;
    selectors: string[] | null;
    selectorsCase: string;
    requiresApproval: boolean;
  }[];
  toolAllowed: {
    tool: string;
    annotations: Record<string, unknown> | null;
    annotationsCase: string;
    enable_tools: string[];
    disable_tools: string[];
    allowed: boolean;
  }[];
}

const truth = JSON.parse(
  readFileSync(new URL('../fixtures/tool-selectors.truth.json', import.meta.url), 'utf8'),
) as Truth;

describe('harness tool selectors (truth table)', () => {
  it('has the rows it claims', () => {
    expect(truth.requiresApproval.length).toBe(468);
    expect(truth.toolAllowed.length).toBe(624);
  });

  it('uses the harness defaults', () => {
    expect(DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS).toEqual(truth.defaults.require_approval_for_tools);
    expect(DEFAULT_ENABLE_TOOLS).toEqual(truth.defaults.enable_tools);
    expect(DEFAULT_DISABLE_TOOLS).toEqual(truth.defaults.disable_tools);
  });

  it('agrees with every requiresApproval row', () => {
    const disagreements = truth.requiresApproval.filter(
      (row) =>
        requiresApproval(row.tool, row.annotations ?? undefined, row.selectors ?? undefined) !==
        row.requiresApproval,
    );
    expect(disagreements).toEqual([]);
  });

  it('agrees with every toolAllowed row', () => {
    const disagreements = truth.toolAllowed.filter(
      (row) =>
        isToolAllowed(row.tool, row.annotations ?? undefined, row.enable_tools, row.disable_tools) !==
        row.allowed,
    );
    expect(disagreements).toEqual([]);
  });

  it('confirms the failure mode the spec defends against: default selectors skip unannotated tools', () => {
    const row = truth.requiresApproval.find(
      (r) =>
        r.tool === 'rollback_deployment' && r.annotationsCase === 'absent' && r.selectorsCase === 'default',
    )!;
    expect(row.requiresApproval).toBe(false);
    expect(requiresApproval('rollback_deployment', undefined, ['@write', '@destructive'])).toBe(false);
    expect(
      requiresApproval('rollback_deployment', undefined, ['@write', '@destructive', 'rollback_deployment']),
    ).toBe(true);
  });
});
