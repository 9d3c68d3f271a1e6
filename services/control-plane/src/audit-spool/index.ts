export { Spool, SpoolClosedError, SpooledRecord } from './spool.js';
export type { AppendMeta, AppendResult, SpoolOptions, WrittenCallback } from './spool.js';
