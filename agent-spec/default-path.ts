/** Where the spec shipped with Sentinel lives (load.ts loads it). Apart so `--help` can show it without loading zod. */
import { fileURLToPath } from 'node:url';

/** The spec shipped with Sentinel. */
export const DEFAULT_AGENT_SPEC_PATH = fileURLToPath(new URL('./sentinel.agent.json', import.meta.url));
