/**
 * Loading scenarios: by name from `deploy/sim/scenarios/<name>.yaml`, from a file path, or from an
 * already-parsed object. Every input is validated against `ScenarioSchema`; a broken scenario is a
 * `SentinelError('invalid_input')` naming the file and the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { didYouMean, fromZod, zodIssueLines, SentinelError } from '../../../core/index.ts';
import { listScenarios, SCENARIOS_DIR } from './bundled.ts';
import { ScenarioSchema } from './schema.ts';
import type { Scenario } from './schema.ts';

export { listScenarios, SCENARIOS_DIR };

/**
 * Validates a parsed scenario. `source` names where it came from in error messages.
 * @throws SentinelError invalid_input: "scenario <source>: <field>: <rule>" (every broken field listed)
 */
export function parseScenario(input: unknown, source: string): Scenario {
  const result = ScenarioSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = zodIssueLines(result.error, [], { all: true, brackets: true });
  throw fromZod(result.error, [], {
    all: true,
    brackets: true,
    message: (text) => `scenario ${source}: ${text}`,
    field: (first) => (first.issue.path.length > 0 ? first.field : 'scenario'),
    details: { source, issues: lines.map((line) => `${line.field}: ${line.rule}`) },
  });
}

/**
 * Loads a scenario by bundled name (`bad-image-rollout`), by path (`./my.yaml`), or validates an
 * object.
 * @throws SentinelError invalid_input when the name is unknown, the file is not YAML, or a field
 *   breaks the schema.
 */
export function loadScenario(scenario: string | unknown): Scenario {
  if (typeof scenario !== 'string') return parseScenario(scenario, '(object)');
  const bundled = join(SCENARIOS_DIR, `${scenario}.yaml`);
  const file = /^[a-z0-9-]+$/.test(scenario) && existsSync(bundled) ? bundled : scenario;
  if (!existsSync(file)) {
    throw new SentinelError(
      'invalid_input',
      `scenario "${scenario}" is neither a bundled scenario (${listScenarios().join(', ')}) nor a file.${didYouMean(scenario, listScenarios())}`,
      { field: 'scenario' },
    );
  }
  let parsed: unknown;
  try {
    parsed = parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SentinelError(
      'invalid_input',
      `scenario ${file}: not valid YAML: ${(error as Error).message}`,
      {
        field: 'scenario',
        cause: error,
      },
    );
  }
  return parseScenario(parsed, file);
}
