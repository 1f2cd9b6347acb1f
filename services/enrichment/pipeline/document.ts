// What an enrichment leaves behind: the JSON document stored as the person's enrichment data
// (shown to API users as `enrichment.data`, so snake_case like the rest of the API) and the plain
// text added to their search document. Only extracted facts are kept, never provider payloads.
import type { Found } from './found.js';
import type { Depth, NormalizedPerson, StepOutcome } from './types.js';

/** Co-authors kept per work in the document (a physics paper can list thousands). */
const MAX_STORED_CO_AUTHORS = 20;

export function enrichmentDocument(depth: Depth, person: NormalizedPerson, found: Found, steps: StepOutcome[]): Record<string, unknown> {
  const data: Record<string, unknown> = {
    depth,
    normalized: {
      name: person.name,
      organization: person.organization,
      location: person.location,
      orcid: person.orcid,
      linkedin_url: person.linkedinUrl,
    },
    topics: found.topics ?? [],
    skills: found.skills ?? [],
  };
  if (found.orcid) {
    data.orcid = {
      employments: found.orcid.employments.map((e) => ({
        organization: e.organization,
        role_title: e.roleTitle,
        department: e.department,
        start_year: e.startYear,
        end_year: e.endYear,
      })),
      works_count: found.orcid.worksCount,
    };
  }
  const author = found.openalex;
  if (author) {
    data.openalex = {
      id: author.id,
      matched_by: author.matchedBy,
      display_name: author.displayName,
      works_count: author.worksCount,
      cited_by_count: author.citedByCount,
      summary_stats: { h_index: author.hIndex, i10_index: author.i10Index, '2yr_mean_citedness': author.twoYearMeanCitedness },
      topics: author.topics,
      last_known_institutions: author.institutions.map((i) => ({ display_name: i.name, country_code: i.countryCode, ror: i.ror })),
    };
  }
  if (found.recentWorks) {
    data.recent_works = found.recentWorks.map((w) => ({
      title: w.title,
      publication_year: w.year,
      doi: w.doi,
      venue: w.venue,
      co_authors: w.coAuthors.slice(0, MAX_STORED_CO_AUTHORS).map((a) => ({ name: a.name, orcid: a.orcid })),
      ...(w.coAuthors.length > MAX_STORED_CO_AUTHORS ? { co_author_count: w.coAuthors.length } : {}),
    }));
  }
  if (found.collaborators) {
    data.collaborators = found.collaborators.map((c) => ({ profile_id: c.profileId, name: c.name, shared_works: c.sharedWorks }));
  }
  if (found.summary) data.summary = found.summary;
  data.steps = steps;
  return data;
}

/**
 * The search text: topics, skills, employers, OpenAlex topics and institutions, work titles and
 * the summary, one group per line, each phrase once (co-authors are other people: left out).
 */
export function searchTextOf(found: Found): string {
  const seen = new Set<string>();
  const line = (phrases: readonly (string | null | undefined)[], separator = ', ') =>
    phrases
      .filter((p): p is string => Boolean(p))
      .filter((p) => {
        const key = p.toLowerCase();
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .join(separator);
  return [
    line(found.topics ?? []),
    line(found.skills ?? []),
    line([...(found.orcid?.employments ?? []).flatMap((e) => [e.organization, e.roleTitle, e.department])]),
    line(found.openalex?.topics ?? []),
    line(found.openalex?.institutions.map((i) => i.name) ?? []),
    line(found.recentWorks?.map((w) => w.title) ?? [], '\n'),
    found.summary ?? '',
  ]
    .filter((l) => l !== '')
    .join('\n');
}
