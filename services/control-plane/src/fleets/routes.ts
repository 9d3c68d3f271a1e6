import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { routeOf } from '../rbac/table.js';
import { FleetService, MAX_REPLICAS } from './service.js';
import { FleetSchema } from '../gameservers/model.js';
import { ListQuery, listPage, Name, Namespace } from '../http/params.js';

const FleetParams = Type.Object({ namespace: Namespace, name: Name });

const fleetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const fleets = new FleetService(app.kube.custom, app.agones.fleets);

  app.route({
    ...routeOf('listFleets'),
    schema: { tags: ['fleets'], querystring: ListQuery, response: { 200: Type.Array(FleetSchema) } },
    handler: async (request, reply) => listPage(request, reply, 'fleets', (namespace) => fleets.list(namespace)),
  });

  app.route({
    ...routeOf('getFleet'),
    schema: { tags: ['fleets'], params: FleetParams, response: { 200: FleetSchema } },
    handler: async (request) => fleets.get(request.params.namespace, request.params.name),
  });

  app.route({
    ...routeOf('scaleFleet'),
    schema: {
      tags: ['fleets'],
      params: FleetParams,
      body: Type.Object(
        { replicas: Type.Integer({ minimum: 0, maximum: MAX_REPLICAS }) },
        { additionalProperties: false },
      ),
      response: { 200: FleetSchema },
    },
    handler: async (request) => fleets.scale(request.params.namespace, request.params.name, request.body.replicas),
  });
};

export default fleetRoutes;
