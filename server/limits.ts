/**
 * Size limits shared by every HTTP route of the server, so code and docs state one number.
 */

/**
 * Largest JSON request body accepted on any route that takes one (`POST /mcp`, the approvals API
 * and `/freeze`), in bytes: 1 MiB. Larger bodies get 413. An approval request created through
 * `POST /approvals` carries a whole tool call, so it must fit what `/mcp` accepts.
 */
export const MAX_BODY_BYTES = 1024 * 1024;
