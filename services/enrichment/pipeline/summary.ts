// The summary step (deep tier, only when an OpenAI-compatible endpoint is configured): a 2–3
// sentence professional summary written by a language model from the facts the other steps
// collected, and from nothing else — the prompt carries the facts and forbids adding to them.
import { z } from 'zod';
import { failureReason, type JsonClient, parseAs, ProviderError } from './http.js';
import type { Found } from './found.js';
import { skip, type NormalizedPerson, type Step } from './types.js';

const SUMMARY_TEMPERATURE = 0.2;
const SUMMARY_MAX_TOKENS = 200;
/** A model that ignores max_tokens is cut here. */
const MAX_SUMMARY_CHARS = 1200;
const MAX_BIO_CHARS = 800;

const SYSTEM_PROMPT =
  'You write short professional summaries of experts for a directory. Write 2-3 sentences in the third person, ' +
  'in plain prose without lists or markdown. Use only the facts given; never add employers, titles, dates or claims ' +
  'that are not in them.';

const completion = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string().nullish() }) })).min(1) });

/** The facts as short labelled lines; null when there is nothing to summarise beyond a name. */
function summaryFacts(person: NormalizedPerson, found: Found): string | null {
  const lines: string[] = [];
  const add = (label: string, value: string | null | undefined) => {
    if (value) lines.push(`${label}: ${value}`);
  };
  add('Headline', person.headline);
  add('Organization', person.organization);
  add('Location', person.location);
  add('Bio', person.bio && person.bio.length > MAX_BIO_CHARS ? `${person.bio.slice(0, MAX_BIO_CHARS)}…` : person.bio);
  add('Topics', found.topics?.join(', '));
  add('Skills', found.skills?.join(', '));
  add(
    'Employment (ORCID)',
    found.orcid?.employments
      .map((e) => {
        const years = e.startYear ? ` (${e.startYear}–${e.endYear ?? 'present'})` : '';
        return [e.roleTitle, e.department, e.organization].filter(Boolean).join(', ') + years;
      })
      .join('; '),
  );
  const author = found.openalex;
  if (author) {
    const h = author.hIndex !== null ? `, h-index ${author.hIndex}` : '';
    add('Publications (OpenAlex)', `${author.worksCount} works, cited ${author.citedByCount} times${h}`);
    add('Research topics (OpenAlex)', author.topics.join(', '));
    add('Institutions (OpenAlex)', author.institutions.map((i) => i.name).join(', '));
  }
  add('Recent works', found.recentWorks?.slice(0, 5).map((w) => `"${w.title}"${w.venue ? ` (${w.venue}${w.year ? `, ${w.year}` : ''})` : ''}`).join('; '));
  add('Frequent collaborators in their community', found.collaborators?.slice(0, 5).map((c) => c.name).join(', '));
  if (lines.length === 0) return null;
  return [`Name: ${person.name}`, ...lines].join('\n');
}

export function summaryStep(client: JsonClient | null, model: string): Step {
  return {
    name: 'summary',
    depth: 'deep',
    async run({ person, found, signal }) {
      if (!client) return skip('no summary endpoint configured');
      const facts = summaryFacts(person, found);
      if (!facts) return skip('too few facts to summarise');
      const request = {
        model,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          { role: 'user', content: `Facts about the expert:\n${facts}\n\nWrite the summary.` },
        ],
        temperature: SUMMARY_TEMPERATURE,
        max_tokens: SUMMARY_MAX_TOKENS,
      };
      try {
        const text = parseAs(completion, await client.post('/chat/completions', request, signal)).choices[0]!.message.content?.trim();
        if (!text) return skip('the summary endpoint answered without text');
        return { found: { summary: text.slice(0, MAX_SUMMARY_CHARS) } };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return skip(failureReason('summary endpoint', error));
      }
    },
  };
}
