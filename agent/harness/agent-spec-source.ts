/**
 * The agent spec that `sentinel harness register` uploads: `agent-spec/`'s loader (strict zod schema,
 * instructions inlined from `agent-spec/instructions.md`).
 */
export { DEFAULT_AGENT_SPEC_PATH, loadAgentSpec } from '../../agent-spec/load.ts';
