/** Roles an identity can hold (DESIGN.md, "Identity"). */
export type Role = 'caller' | 'approver' | 'admin';
