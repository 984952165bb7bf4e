/**
 * Light entry of the agent-spec module: the shipped spec's path (a `--spec` default), without the
 * spec's zod schema. Everything here is also exported by index.ts.
 */
export { DEFAULT_AGENT_SPEC_PATH } from './default-path.ts';
