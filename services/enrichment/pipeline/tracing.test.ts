// Each step runs in its own span, enrichment.<step>, carrying the tier and whether and why it was
// skipped — and no personal data: no name, ORCID iD, organisation or URL of the person.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PEOPLE, startProviderReplay, type ProviderReplay } from '../../../test/helpers/provider-replay.js';
import { startSdk } from '../../kit/telemetry-sdk.js';
import { createEnrichmentPipeline } from './index.js';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor(exporter);
const sdk = startSdk({ serviceName: 'enrichment-pipeline-test', spanProcessors: [processor] });
let replay: ProviderReplay;
beforeAll(async () => {
  replay = await startProviderReplay();
});
afterAll(async () => {
  await replay.close();
  await sdk.shutdown();
});

describe('step spans', () => {
  it('names each step, sets depth and outcome, and carries no personal data', async () => {
    const { withOrcid } = FIXTURE_PEOPLE;
    const pipeline = createEnrichmentPipeline({
      orcidApiUrl: replay.orcidUrl,
      openAlexApiUrl: replay.openAlexUrl,
      orcidRatePerSecond: 100,
      openAlexRatePerSecond: 100,
      httpTimeoutMs: 2000,
      httpRetries: 0,
      summaryModel: 'gpt-4o-mini',
    });
    await pipeline.enrich(
      {
        profileId: 'p_maria',
        name: withOrcid.name,
        headline: 'Structural biologist',
        bio: null,
        organization: withOrcid.organization,
        location: withOrcid.location,
        orcid: withOrcid.orcid,
        linkedinUrl: 'https://www.linkedin.com/in/maria-lindqvist',
      },
      'deep',
    );
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans().filter((s) => s.name.startsWith('enrichment.'));
    expect(spans.map((s) => s.name).sort()).toEqual(
      ['collaborators', 'normalize', 'openalex', 'orcid', 'recent_works', 'summary', 'topics'].map((step) => `enrichment.${step}`),
    );
    for (const span of spans) expect(span.attributes['enrichment.depth'], span.name).toBe('deep');
    const byName = Object.fromEntries(spans.map((s) => [s.name, s.attributes]));
    expect(byName['enrichment.orcid']).toMatchObject({ 'enrichment.skipped': false });
    expect(byName['enrichment.summary']).toMatchObject({ 'enrichment.skipped': true, 'enrichment.reason': 'no summary endpoint configured' });
    expect(byName['enrichment.collaborators']).toMatchObject({ 'enrichment.skipped': true, 'enrichment.reason': 'no community peers' });
    const attributes = JSON.stringify(spans.map((s) => s.attributes));
    for (const personal of [withOrcid.name, 'Lindqvist', withOrcid.orcid, withOrcid.organization, 'linkedin', 'p_maria']) {
      expect(attributes).not.toContain(personal);
    }
  });
});
