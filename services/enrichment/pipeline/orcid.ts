// The orcid step (standard tier): the person's public ORCID record through the ORCID public API
// v3.0 — employments (organisation, role, department, years) and how many works they list. Only
// the summaries endpoints are read: two small documents per person instead of the full record.
import { z } from 'zod';
import { failureReason, type JsonClient, parseAs, ProviderError } from './http.js';
import type { OrcidEmployment } from './found.js';
import { skip, type Step } from './types.js';

const MAX_EMPLOYMENTS = 10;

// ORCID writes missing values as null; a fuzzy date is {year, month, day}, each {value: "2015"} or null.
const fuzzyDate = z.object({ year: z.object({ value: z.string() }).nullish() }).nullish();
const employmentSummary = z.object({
  'role-title': z.string().nullish(),
  'department-name': z.string().nullish(),
  'start-date': fuzzyDate,
  'end-date': fuzzyDate,
  organization: z.object({ name: z.string() }).nullish(),
});
const employmentsDocument = z.object({
  'affiliation-group': z.array(z.object({ summaries: z.array(z.object({ 'employment-summary': employmentSummary.nullish() })).nullish() })).nullish(),
});
const worksDocument = z.object({ group: z.array(z.unknown()).nullish() });

const year = (date: z.infer<typeof fuzzyDate>) => {
  const value = Number(date?.year?.value);
  return Number.isInteger(value) && value > 0 ? value : null;
};

/** Employments of an ORCID `/employments` document: the preferred summary of each affiliation group. */
function readEmployments(body: unknown): OrcidEmployment[] {
  const groups = parseAs(employmentsDocument, body)['affiliation-group'] ?? [];
  const employments: OrcidEmployment[] = [];
  for (const group of groups) {
    // A group holds one affiliation as asserted by several sources; the first is the one displayed.
    const summary = group.summaries?.[0]?.['employment-summary'];
    const organization = summary?.organization?.name.trim();
    if (!summary || !organization) continue;
    employments.push({
      organization,
      roleTitle: summary['role-title']?.trim() || null,
      department: summary['department-name']?.trim() || null,
      startYear: year(summary['start-date']),
      endYear: year(summary['end-date']),
    });
  }
  return employments
    .sort((a, b) => Number(a.endYear !== null) - Number(b.endYear !== null) || (b.startYear ?? 0) - (a.startYear ?? 0))
    .slice(0, MAX_EMPLOYMENTS);
}

function readWorksCount(body: unknown): number {
  return parseAs(worksDocument, body).group?.length ?? 0;
}

export function orcidStep(client: JsonClient | null): Step {
  return {
    name: 'orcid',
    depth: 'standard',
    async run({ person, signal }) {
      if (!client) return skip('ORCID provider is off');
      if (!person.orcid) return skip(person.orcidProblem ? 'no valid ORCID iD' : 'no ORCID iD');
      // Both requests at once; when one fails the other is cancelled rather than left to retry.
      const sibling = new AbortController();
      const both = signal ? AbortSignal.any([signal, sibling.signal]) : sibling.signal;
      try {
        const [employments, works] = await Promise.all([
          client.get(`/${person.orcid}/employments`, {}, both),
          client.get(`/${person.orcid}/works`, {}, both),
        ]);
        return { found: { orcid: { employments: readEmployments(employments), worksCount: readWorksCount(works) } } };
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        return skip(error.kind === 'not_found' ? 'ORCID record not found' : failureReason('ORCID', error));
      } finally {
        sibling.abort();
      }
    },
  };
}
