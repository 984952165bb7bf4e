/**
 * Public entry of the command line module: the `sentinel` program (`bin/sentinel.js` runs `main` from program.ts).
 * No other module imports the command line; it imports every other module through its index.ts.
 */
export { buildProgram, main, type CommandRegistrar } from './program.ts';
