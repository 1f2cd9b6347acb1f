// whoami and get_my_profile: GET /v1/me and GET /v1/me/profile.
import { getMeEndpoint, getOwnProfileEndpoint } from '../../core/contract/me.js';
import type { Edge } from '../../core/edge.js';
import { getMe } from '../../core/me.js';
import { getOwnProfile } from '../../core/profile.js';
import { defineTool, READ_ONLY, type ToolSpec } from '../tool-spec.js';

export function identityTools(edge: Edge): ToolSpec[] {
  return [
    defineTool({
      name: 'whoami',
      title: 'Describe my credential',
      description:
        'Describes the credential this session uses: its id, kind (API key or OAuth), rate tier, billing owner, granted scopes, usage counters and the live credit balance. ' +
        'Call it first to learn which other tools you may use: each tool names the scope it needs.',
      endpoint: () => getMeEndpoint,
      input: {},
      request: () => ({}),
      annotations: { ...READ_ONLY, title: 'Describe my credential' },
      run: (ctx) => getMe(edge, ctx),
    }),
    defineTool({
      name: 'get_my_profile',
      title: 'Read my own profile',
      description:
        'Returns the expert profile claimed by the user behind this credential (name, headline, bio, organization, location, links). Needs scope profile:read. Fails with not_found when the user has no profile yet.',
      endpoint: () => getOwnProfileEndpoint,
      input: {},
      request: () => ({}),
      annotations: { ...READ_ONLY, title: 'Read my own profile' },
      run: (ctx) => getOwnProfile(edge, ctx),
    }),
  ];
}
