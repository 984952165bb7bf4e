/** "Did you mean …?" lives in core (every module suggests names); re-exported for the tools. */
export { closestNames, didYouMean } from '../../core/index.ts';
