// Announces a deprecated route or version on every response to it, ahead of its retirement.
import fp from 'fastify-plugin';
import { deprecationFor, deprecationHeaders, type Deprecation } from '../../core/deprecations.js';

export default fp<{ schedule: Deprecation[] }>(
  async (app, { schedule }) => {
    if (schedule.length === 0) return;
    app.addHook('onRequest', async (request, reply) => {
      const route = request.routeOptions.url;
      if (!route) return; // unknown path: nothing to announce
      const entry = deprecationFor(schedule, request.method, route);
      if (entry) reply.headers(deprecationHeaders(entry));
    });
  },
  { name: 'deprecation' },
);
