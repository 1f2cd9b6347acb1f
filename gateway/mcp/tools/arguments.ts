// Arguments several tools share, built from the contract's own schema pieces: a tool names the
// community `community_id` where REST has it in the path as `id`.
import { communityId, profileId } from '../../core/contract/schemas.js';

export const communityIdArg = communityId().describe('Community id, as listed by list_communities.');
export const profileIdArg = profileId().describe('Profile id of the person (e.g. `p_123`), as returned by the roster or by add_community_members.');
