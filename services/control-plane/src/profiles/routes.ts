import { Type } from 'typebox';
import type { TSchema } from 'typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sendProblem } from '@gsp/service-kit';
import { routeOf } from '../rbac/table.js';
import { fieldErrors, ProfileBody, ProfileName, ProfileView, profileIssues, toProfile } from './schema.js';

const Params = Type.Object({ name: ProfileName });

/**
 * The body of a PUT is checked by the schema and by the rules a schema cannot say (unique port
 * names, no built-in action names, requests within limits) in one pass, so a client learns every
 * error at once; the path is left to the service's TypeBox compiler.
 */
const profileValidator: FastifySchemaCompiler<TSchema> = (route) => {
  if (route.httpPart !== 'body') return TypeBoxValidatorCompiler(route);
  return (value) => {
    const issues = profileIssues(value);
    return issues.length > 0 ? { error: issues } : { value };
  };
};

/** GET/PUT/DELETE /api/v1/profiles[/:name]: the profiles of profiles/store.ts. */
const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const store = app.profiles;
  const tags = ['profiles'];

  app.route({
    ...routeOf('listProfiles'),
    schema: {
      tags,
      summary: 'The valid profiles, by name (a ConfigMap that does not validate is left out).',
      response: { 200: Type.Array(ProfileView) },
    },
    handler: async () => store.list(),
  });

  app.route({
    ...routeOf('getProfile', [422]),
    schema: {
      tags,
      summary: 'One profile; 422 when its ConfigMap exists but does not validate.',
      params: Params,
      response: { 200: ProfileView },
    },
    handler: async (request, reply) => {
      const profile = store.get(request.params.name);
      if (profile !== undefined) return profile;
      const { detail, errors } = store.refusal(request.params.name);
      return sendProblem(request, reply, 422, detail, fieldErrors(errors));
    },
  });

  app.route({
    // 409: a ConfigMap of that name that is not a profile, or a race; 422: Kubernetes refused it.
    ...routeOf('putProfile', [409, 422]),
    schema: {
      tags,
      summary:
        'Creates (201) or replaces (200) a profile, stored as ConfigMap gsp-profile-<name> labelled gsp.dev/profile.',
      params: Params,
      body: ProfileBody,
      response: { 200: ProfileView, 201: ProfileView },
    },
    validatorCompiler: profileValidator,
    handler: async (request, reply) => {
      const { name } = request.params;
      const { profile, created } = await store.put(name, toProfile(name, request.body));
      if (created) reply.code(201).header('location', `/api/v1/profiles/${name}`);
      return profile;
    },
  });

  app.route({
    ...routeOf('deleteProfile', [409]),
    schema: {
      tags,
      summary: 'Deletes a profile; game servers made from it keep running.',
      params: Params,
      response: { 204: Type.Null({ description: 'Deleted.' }) },
    },
    handler: async (request, reply) => {
      await store.delete(request.params.name);
      return reply.code(204).send(null);
    },
  });
};

export default profileRoutes;
