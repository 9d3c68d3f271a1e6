import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

/** `GET /api/v1/me` and `GET /api/v1/events` (Server-Sent Events). Filled in by issue 22. */
const eventRoutes: FastifyPluginAsyncTypebox = async () => {};

export default eventRoutes;
