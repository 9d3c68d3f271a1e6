import fp from 'fastify-plugin';
import type { ApiServerConfig } from '../config.js';

/** The console's sign-in and sessions (backend-for-frontend). Filled in by issue 23. */
export default fp<{ config: ApiServerConfig }>(async () => {}, { name: 'console-auth', dependencies: ['db'] });
