/**
 * The failure classes (agent/investigator/playbook/failures.ts) against the docs and the bundled
 * scenarios: deploy/sim/README.md's coverage table has a row for every `facts.failure` the playbook
 * sets, each row's scenarios exist and state that class in their `expected` (or a step's), and each
 * row's unit test exists and names it; README's decision table names every playbook class and
 * every failure id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLASSES, FAILURE_IDS } from '../../../../agent/investigator/playbook.ts';
import { listScenarios, loadScenario } from '../../../../deploy/sim/index.ts';
import type { ExpectedOutcome } from '../../../../deploy/index.ts';

const ROOT = join(import.meta.dirname, '../../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The rows of the Markdown table after `marker` in `text`, as cells. */
function tableAfter(text: string, marker: string): string[][] {
  const lines = text.slice(text.indexOf(marker)).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const rows = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Whether `expected` states the class `key` names (see the table's "key" column). */
function states(expected: ExpectedOutcome, key: string): boolean {
  if ((FAILURE_IDS as string[]).includes(key)) return expected.facts?.failure === key;
  if (key === 'reverted') return expected.verification?.state === 'reverted';
  if (key === 'restart' || key.startsWith('refused:')) return expected.action === key;
  return expected.facts?.[key] !== undefined;
}

describe('failure class coverage (deploy/sim/README.md)', () => {
  const rows = tableAfter(read('deploy/sim/README.md'), '<!-- failure-coverage -->');

  it('has a row for every facts.failure the playbook sets', () => {
    const keys = rows.map((row) => ticked(row[1]!)[0]);
    for (const id of FAILURE_IDS) expect(keys, id).toContain(id);
  });

  it.each(rows.map((row) => [ticked(row[1]!)[0]!, row] as const))(
    '%s: its scenarios state it and its unit test names it',
    (key, row) => {
      const scenarios = ticked(row[2]!);
      expect(scenarios.length, key).toBeGreaterThan(0);
      for (const name of scenarios) {
        expect(listScenarios(), key).toContain(name);
        const scenario = loadScenario(name);
        const outcomes = [scenario.expected, ...scenario.steps.map((s) => s.expected)];
        expect(
          outcomes.some((expected) => states(expected, key)),
          `${name} states ${key}`,
        ).toBe(true);
      }
      const [test] = ticked(row[3]!);
      expect(existsSync(join(ROOT, test!)), test).toBe(true);
      const name = key.startsWith('refused:') ? key.slice('refused:'.length) : key;
      expect(read(test!), `${test} names ${name}`).toContain(name);
    },
  );
});

describe("README's decision table", () => {
  const rows = tableAfter(read('README.md'), '<!-- decision-table');

  it('has a row for every playbook class, in the order they decide, and for the dependency class', () => {
    const classes = rows.map((row) => ticked(row[0]!)[0]).filter((c): c is string => c !== undefined);
    const order = CLASSES.map((c) => c.name);
    expect([...new Set(classes)].filter((c) => order.includes(c))).toEqual(order);
    expect(classes).toContain('dependency');
  });

  it('names every facts.failure in the row of the class that sets it', () => {
    const failures = rows.flatMap((row) => ticked(row[1]!));
    for (const id of FAILURE_IDS) expect(failures, id).toContain(id);
  });
});
