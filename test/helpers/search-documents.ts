// A search document as the communities service would send it for a member: named after its
// profile, every other field empty unless the test sets it.
import type { IndexedDocument } from '../../services/search/search-corpus.repository.js';

export function memberDocument(community_id: string, profile_id: string, fields: Partial<IndexedDocument> = {}): IndexedDocument {
  return {
    community_id,
    profile_id,
    user_id: null,
    name: `Person ${profile_id}`,
    headline: null,
    bio: null,
    organization: null,
    location: null,
    avatar_url: null,
    enrichment_text: null,
    ...fields,
  };
}
