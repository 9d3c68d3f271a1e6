import fp from 'fastify-plugin';

/** Agent presence: clears tunnels whose proxy stopped renewing their lease. Filled in by issue 22. */
export default fp(async () => {}, { name: 'presence', dependencies: ['db'] });
