// GET /v1/openapi.json: the OpenAPI document of the v1 surface, built once from the endpoint
// contract when the route is registered. Authentication (app level) covers it like every path;
// any valid credential may read it.
import type { FastifyInstance } from 'fastify';
import { serializeOpenApiDocument } from '../../openapi/build-openapi.js';

export default async function openapiRoutes(app: FastifyInstance) {
  const body = serializeOpenApiDocument();
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
}
