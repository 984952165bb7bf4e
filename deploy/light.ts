/**
 * Light entry of the deploy module: the bundled scenarios' directory and names (option defaults and
 * `--help` text), without the simulator. Everything here is also exported by index.ts.
 */
export { SCENARIOS_DIR, listScenarios } from './sim/scenario/bundled.ts';
