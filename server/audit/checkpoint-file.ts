/** File of the server's own audit checkpoints inside the data directory (checkpoint.ts writes it). */
export const CHECKPOINT_FILE = 'audit-checkpoints.jsonl';
