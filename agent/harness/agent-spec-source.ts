/**
 * Reads the agent spec that `sentinel harness register` uploads.
 *
 * Stand-in until `agent-spec/`'s own loader (with its full zod schema and the instructions inlined
 * from `agent-spec/instructions.md`) lands: it reads the JSON file, inlines a sibling
 * `instructions.md` when the spec has no `instructions`, and checks what registration relies on.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SentinelError } from '../../tools/errors.ts';
import { AgentSpecSchema, type AgentSpec } from './schemas.ts';

/** `agent-spec/sentinel.agent.json` of this package. */
export const DEFAULT_AGENT_SPEC_PATH = fileURLToPath(
  new URL('../../agent-spec/sentinel.agent.json', import.meta.url),
);

/**
 * Loads and validates a TrueForge agent spec (`AgentSpec` in openapi.json). Throws
 * `SentinelError('invalid_input')` naming the file and the field when it is missing or malformed.
 */
export function loadAgentSpec(path: string = DEFAULT_AGENT_SPEC_PATH): AgentSpec {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason =
      (error as { code?: string }).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new SentinelError('invalid_input', `Cannot read the agent spec ${path}: ${reason}.`, {
      field: 'spec',
      cause: error,
    });
  }
  const parsed = AgentSpecSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'spec';
    throw new SentinelError(
      'invalid_input',
      `Agent spec ${path}: ${field}: ${issue?.message ?? 'invalid'}.`,
      { field },
    );
  }
  const spec = parsed.data;
  const instructions = join(dirname(path), 'instructions.md');
  if (spec.instructions === undefined && existsSync(instructions)) {
    return { ...spec, instructions: readFileSync(instructions, 'utf8') };
  }
  return spec;
}
