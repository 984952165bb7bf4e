/**
 * The bundled scenarios' directory and names (load.ts loads them). Apart so the command line can
 * list them in `sentinel sim --help` without loading the simulator, yaml or zod.
 */
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directory of the bundled scenarios. */
export const SCENARIOS_DIR = fileURLToPath(new URL('../scenarios/', import.meta.url));

/** Names of the bundled scenarios (`<name>.yaml` in `SCENARIOS_DIR`), sorted. */
export function listScenarios(): string[] {
  return readdirSync(SCENARIOS_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => basename(file, '.yaml'))
    .sort();
}
