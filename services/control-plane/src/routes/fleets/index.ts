import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { routeOf } from '../table.js';
import { NotFound } from '../../errors.js';
import { AGONES, FleetSchema, fleetView } from '../../gameservers/model.js';
import type { AgonesFleet } from '../../gameservers/model.js';
import { ListQuery, listPage, Name, Namespace } from '../params.js';

const SETTLE_MS = 2000;
/** A bound against typos (10000 for 100): each replica is a pod. */
export const MAX_REPLICAS = 10_000;
const FleetParams = Type.Object({ namespace: Namespace, name: Name });
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

const fleetRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { custom } = app.kube;
  const { fleets } = app.agones;

  const cached = (namespace: string, name: string): AgonesFleet => {
    fleets.requireReady();
    const fleet = fleets.get(namespace, name);
    if (fleet === undefined) throw new NotFound(`fleet ${namespace}/${name} not found`);
    return fleet;
  };

  app.route({
    ...routeOf('listFleets'),
    schema: { tags: ['fleets'], querystring: ListQuery, response: { 200: Type.Array(FleetSchema) } },
    handler: async (request, reply) =>
      listPage(request, reply, 'fleets', (namespace) => {
        fleets.requireReady();
        return fleets
          .list(namespace)
          .map(fleetView)
          .sort((a, b) =>
            a.namespace === b.namespace ? a.name.localeCompare(b.name) : a.namespace < b.namespace ? -1 : 1,
          );
      }),
  });

  app.route({
    ...routeOf('getFleet'),
    schema: { tags: ['fleets'], params: FleetParams, response: { 200: FleetSchema } },
    handler: async (request) => fleetView(cached(request.params.namespace, request.params.name)),
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
    handler: async (request) => {
      const { namespace, name } = request.params;
      const { replicas } = request.body;
      // Through the scale subresource, as `kubectl scale` does: RBAC can grant it alone.
      await custom
        .patchNamespacedCustomObjectScale(
          { ...AGONES, namespace, plural: 'fleets', name, body: { spec: { replicas } } },
          mergePatch,
        )
        .catch((err: unknown) => {
          throw err instanceof NotFound ? new NotFound(`fleet ${namespace}/${name} not found`) : err;
        });
      await fleets.waitFor(namespace, name, (f) => f === undefined || f.spec?.replicas === replicas, SETTLE_MS);
      const seen = fleets.get(namespace, name);
      const view = fleetView(seen ?? { metadata: { namespace, name } });
      return { ...view, replicas };
    },
  });
};

export default fleetRoutes;
