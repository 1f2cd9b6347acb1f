// GET /v1/openapi.json: the OpenAPI document of the v1 surface, built once from the endpoint
// contract when the route is registered. Authentication (app level) covers it like every path;
// any valid credential may read it.
import type { FastifyInstance } from 'fastify';
import { openapiEndpoint } from '../../../core/contract/endpoints.js';
import { serializeOpenApiDocument } from '../../openapi/build-openapi.js';
import { route } from './route.js';

export default async function openapiRoutes(app: FastifyInstance) {
  const body = serializeOpenApiDocument();
  route(app, openapiEndpoint, async (_input, _request, reply) => reply.type('application/json; charset=utf-8').send(body));
}
