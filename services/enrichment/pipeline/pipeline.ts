// Runs one person through the steps of a tier: normalize first (everything after reads the
// normalised person), then the steps in stages — the steps of one stage need only earlier stages,
// so they run at once (ORCID and OpenAlex in parallel). Each step runs in its own span; a step
// that cannot run is recorded as skipped with its reason. enrich() throws only on programmer
// errors, and with the signal's reason when the caller aborts.
import { inStep } from '../../kit/telemetry.js';
import { enrichmentDocument, searchTextOf } from './document.js';
import { normalizePerson } from './normalize.js';
import type { Found } from './found.js';
import {
  type CommunityPeer,
  type Depth,
  DEPTHS,
  type EnrichmentPipeline,
  type EnrichmentResult,
  type PersonInput,
  type Step,
  type StepOutcome,
} from './types.js';

const NO_PEERS: readonly CommunityPeer[] = [];

/** Span attributes: the tier and the outcome, never names, iDs or other personal data. */
const ATTR = {
  depth: 'enrichment.depth',
  skipped: 'enrichment.skipped',
  reason: 'enrichment.reason',
} as const;

export class StagedPipeline implements EnrichmentPipeline {
  /** @param stages steps in the order they may run; a stage's steps run concurrently. */
  constructor(private readonly stages: readonly (readonly Step[])[]) {}

  async enrich(input: PersonInput, depth: Depth, context: { peers?: CommunityPeer[]; signal?: AbortSignal } = {}): Promise<EnrichmentResult> {
    const tier = DEPTHS.indexOf(depth);
    if (tier < 0) throw new TypeError(`unknown enrichment depth ${JSON.stringify(depth)}`);
    const { signal } = context;
    signal?.throwIfAborted();
    const steps: StepOutcome[] = [];

    const { person, problems } = await inStep('enrichment.normalize', { [ATTR.depth]: depth, [ATTR.skipped]: false }, async () => normalizePerson(input));
    steps.push(problems.length > 0 ? { step: 'normalize', status: 'succeeded', reason: problems.join('; ') } : { step: 'normalize', status: 'succeeded' });

    const found: Found = {};
    for (const stage of this.stages) {
      const due = stage.filter((step) => DEPTHS.indexOf(step.depth) <= tier);
      const outcomes = await Promise.all(
        due.map((step) =>
          inStep(`enrichment.${step.name}`, { [ATTR.depth]: depth }, async (span) => {
            let result;
            try {
              result = await step.run({ person, found, peers: context.peers ?? NO_PEERS, signal });
            } catch (error) {
              // Whatever a step was doing when the caller aborted, the abort is what happened.
              signal?.throwIfAborted();
              throw error;
            }
            span.setAttributes('skipped' in result ? { [ATTR.skipped]: true, [ATTR.reason]: result.skipped } : { [ATTR.skipped]: false });
            return { step, result };
          }),
        ),
      );
      // Applied in declaration order, so the document does not depend on which answer came first.
      for (const { step, result } of outcomes) {
        if ('skipped' in result) steps.push({ step: step.name, status: 'skipped', reason: result.skipped });
        else {
          Object.assign(found, result.found);
          steps.push({ step: step.name, status: 'succeeded' });
        }
      }
      signal?.throwIfAborted();
    }

    return {
      data: enrichmentDocument(depth, person, found, steps),
      searchText: searchTextOf(found),
      normalized: { name: person.name, organization: person.organization, location: person.location, orcid: person.orcid, linkedinUrl: person.linkedinUrl },
      steps,
    };
  }
}
