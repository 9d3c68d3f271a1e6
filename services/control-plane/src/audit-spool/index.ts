export { Spool, SpoolClosedError } from './spool.js';
export type { AppendResult, SpoolOptions, SpooledRecord } from './spool.js';
