// The openalex step (standard tier): the person's OpenAlex author profile — publication and
// citation counts, h-index, research topics, last known institutions. Found by ORCID iD when the
// person has one OpenAlex knows; otherwise by a name search, accepted only when the name agrees
// closely (and, among such results, preferring one at the person's organisation): a wrong match
// would attach someone else's publications to the person.
import { z } from 'zod';
import { failureReason, type JsonClient, parseAs, ProviderError } from './http.js';
import { namesMatch, organizationsMatch } from './normalize.js';
import type { OpenAlexAuthor } from './found.js';
import { skip, type Step } from './types.js';

const MAX_AUTHOR_TOPICS = 10;
/** Name search candidates read (the top one is accepted only when its name agrees). */
const NAME_SEARCH_RESULTS = 5;

const author = z.object({
  id: z.string(),
  display_name: z.string(),
  display_name_alternatives: z.array(z.string()).nullish(),
  works_count: z.number().nullish(),
  cited_by_count: z.number().nullish(),
  summary_stats: z
    .object({ h_index: z.number().nullish(), i10_index: z.number().nullish(), '2yr_mean_citedness': z.number().nullish() })
    .nullish(),
  topics: z.array(z.object({ display_name: z.string() })).nullish(),
  last_known_institutions: z.array(z.object({ display_name: z.string(), country_code: z.string().nullish(), ror: z.string().nullish() })).nullish(),
});
type AuthorRecord = z.infer<typeof author>;
const authorList = z.object({ results: z.array(author) });

/**
 * The name search result to accept, if any: among those whose name agrees closely with the
 * person's, the first at the person's organisation; else the top result, when its name agrees.
 */
function chooseAuthor(results: readonly AuthorRecord[], name: string, organization: string | null): AuthorRecord | undefined {
  const close = results.filter((a) => [a.display_name, ...(a.display_name_alternatives ?? [])].some((n) => namesMatch(name, n)));
  if (organization) {
    const atOrganization = close.find((a) => a.last_known_institutions?.some((i) => organizationsMatch(i.display_name, organization)));
    if (atOrganization) return atOrganization;
  }
  return close[0] !== undefined && close[0] === results[0] ? close[0] : undefined;
}

function summarise(record: AuthorRecord, matchedBy: OpenAlexAuthor['matchedBy']): OpenAlexAuthor {
  return {
    id: record.id,
    matchedBy,
    displayName: record.display_name,
    worksCount: record.works_count ?? 0,
    citedByCount: record.cited_by_count ?? 0,
    hIndex: record.summary_stats?.h_index ?? null,
    i10Index: record.summary_stats?.i10_index ?? null,
    twoYearMeanCitedness: record.summary_stats?.['2yr_mean_citedness'] ?? null,
    topics: (record.topics ?? []).slice(0, MAX_AUTHOR_TOPICS).map((t) => t.display_name),
    institutions: (record.last_known_institutions ?? []).map((i) => ({ name: i.display_name, countryCode: i.country_code ?? null, ror: i.ror ?? null })),
  };
}

export function openAlexStep(client: JsonClient | null): Step {
  return {
    name: 'openalex',
    depth: 'standard',
    async run({ person, signal }) {
      if (!client) return skip('OpenAlex provider is off');
      if (!person.orcid && !person.name) return skip('no ORCID iD or name to look up');
      try {
        if (person.orcid) {
          const { results } = parseAs(authorList, await client.get('/authors', { filter: `orcid:${person.orcid}` }, signal));
          if (results[0]) return { found: { openalex: summarise(results[0], 'orcid') } };
        }
        if (!person.name) return skip('no OpenAlex author with this ORCID iD');
        const { results } = parseAs(authorList, await client.get('/authors', { search: person.name, 'per-page': NAME_SEARCH_RESULTS }, signal));
        const chosen = chooseAuthor(results, person.name, person.organization);
        if (!chosen) return skip('no matching OpenAlex author');
        return { found: { openalex: summarise(chosen, 'name') } };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return skip(failureReason('OpenAlex', error));
      }
    },
  };
}
