// The recent_works step (deep tier): the ten latest works of the OpenAlex author the openalex step
// matched — title, year, DOI, venue and co-authors (the collaborators step reads the co-authors).
import { z } from 'zod';
import { failureReason, type JsonClient, parseAs, ProviderError } from './http.js';
import { orcidOrNull } from './normalize.js';
import type { RecentWork } from './found.js';
import { skip, type Step } from './types.js';

const RECENT_WORKS = 10;

const work = z.object({
  title: z.string().nullish(),
  display_name: z.string().nullish(),
  publication_year: z.number().nullish(),
  doi: z.string().nullish(),
  primary_location: z.object({ source: z.object({ display_name: z.string().nullish() }).nullish() }).nullish(),
  authorships: z
    .array(z.object({ author: z.object({ id: z.string().nullish(), display_name: z.string().nullish(), orcid: z.string().nullish() }) }))
    .nullish(),
});
const workList = z.object({ results: z.array(work) });

/** The works of an OpenAlex `/works` list, with the author's own authorship left out of co-authors. */
function readWorks(body: unknown, authorId: string): RecentWork[] {
  const works: RecentWork[] = [];
  for (const w of parseAs(workList, body).results) {
    const title = (w.title ?? w.display_name)?.trim();
    if (!title) continue;
    works.push({
      title,
      year: w.publication_year ?? null,
      doi: w.doi ? w.doi.replace(/^https?:\/\/(?:dx\.)?doi\.org\//i, '') : null,
      venue: w.primary_location?.source?.display_name ?? null,
      coAuthors: (w.authorships ?? [])
        .filter((a) => a.author.id !== authorId && a.author.display_name)
        .map((a) => ({ name: a.author.display_name!, orcid: orcidOrNull(a.author.orcid) })),
    });
  }
  return works;
}

export function recentWorksStep(client: JsonClient | null): Step {
  return {
    name: 'recent_works',
    depth: 'deep',
    async run({ found, signal }) {
      if (!client) return skip('OpenAlex provider is off');
      const author = found.openalex;
      if (!author) return skip('no OpenAlex author matched');
      // The filter takes the short id (A…) of the author's URL.
      const shortId = author.id.slice(author.id.lastIndexOf('/') + 1);
      try {
        const query = { filter: `author.id:${shortId}`, sort: 'publication_date:desc', 'per-page': RECENT_WORKS };
        return { found: { recentWorks: readWorks(await client.get('/works', query, signal), author.id) } };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return skip(failureReason('OpenAlex', error));
      }
    },
  };
}
