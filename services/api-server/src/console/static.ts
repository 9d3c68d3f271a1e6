import fp from 'fastify-plugin';
import type { ApiServerConfig } from '../config.js';

/** The built web console under `/console/`. Filled in by issue 23. */
export default fp<{ config: ApiServerConfig }>(async () => {}, { name: 'console-static' });
