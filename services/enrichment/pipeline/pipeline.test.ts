// The three tiers end to end over real HTTP, against the replay server's recorded ORCID, OpenAlex
// and chat completion answers: what each tier stores and indexes, and how every step that cannot
// run (provider off, record missing, host unreachable, no endpoint) is recorded instead of thrown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_PEOPLE, FIXTURE_SUMMARY, startProviderReplay, type ProviderReplay } from '../../../test/helpers/provider-replay.js';
import {
  type CommunityPeer,
  createEnrichmentPipeline,
  OFFLINE_PROVIDERS,
  type PersonInput,
  type ProviderConfig,
  providerConfigFrom,
} from './index.js';

let replay: ProviderReplay;
beforeAll(async () => {
  replay = await startProviderReplay();
});
afterAll(() => replay.close());

const online = (overrides: Partial<ProviderConfig> = {}): ProviderConfig => ({
  orcidApiUrl: replay.orcidUrl,
  openAlexApiUrl: replay.openAlexUrl,
  orcidRatePerSecond: 100,
  openAlexRatePerSecond: 100,
  httpTimeoutMs: 2000,
  httpRetries: 2,
  summaryModel: 'gpt-4o-mini',
  ...overrides,
});

const person = (fields: Partial<PersonInput>): PersonInput => ({
  profileId: 'p_person',
  name: '',
  headline: null,
  bio: null,
  organization: null,
  location: null,
  orcid: null,
  linkedinUrl: null,
  ...fields,
});

const { withOrcid, orcidNotFound, byName, coAuthor, unknown } = FIXTURE_PEOPLE;

const maria = person({
  profileId: 'p_maria',
  name: 'MARIA  LINDQVIST',
  headline: 'Structural biologist · membrane transporters and drug resistance',
  bio: 'Maria leads a group that combines cryo-EM with deep learning to study bacterial efflux pumps. She teaches bioinformatics and builds open-source tools in Python.',
  organization: 'karolinska institutet',
  location: 'stockholm, sweden',
  orcid: `https://orcid.org/${withOrcid.orcid}`,
  linkedinUrl: 'http://linkedin.com/in/Maria-Lindqvist/?trk=profile',
});

const peers: CommunityPeer[] = [
  { profileId: 'p_maria', name: withOrcid.name, orcid: withOrcid.orcid },
  // Matched by ORCID iD even though the name is spelled without the accent.
  { profileId: 'p_tomas', name: 'Tomas Okafor', orcid: coAuthor.orcid },
  // No ORCID iD anywhere: matched by name.
  { profileId: 'p_priya', name: 'priya raman', orcid: null },
  { profileId: 'p_other', name: 'Someone Else', orcid: null },
];

const stepsOf = (result: { steps: { step: string; status: string; reason?: string }[] }) =>
  Object.fromEntries(result.steps.map((s) => [s.step, s.reason ? `${s.status}: ${s.reason}` : s.status]));
const requestsSince = (start: number) => replay.requests.slice(start).map((r) => `${r.method} ${r.path.split('?')[0]}`);

describe('quick tier', () => {
  it('normalises and extracts topics offline, whatever providers are configured', async () => {
    const before = replay.requests.length;
    const result = await createEnrichmentPipeline(online()).enrich(maria, 'quick');
    expect(replay.requests.length).toBe(before);
    expect(result.normalized).toEqual({
      name: 'Maria Lindqvist',
      organization: 'Karolinska Institutet',
      location: 'Stockholm, Sweden',
      orcid: withOrcid.orcid,
      linkedinUrl: 'https://www.linkedin.com/in/maria-lindqvist',
    });
    expect(stepsOf(result)).toEqual({ normalize: 'succeeded', topics: 'succeeded' });
    expect(result.data).toEqual({
      depth: 'quick',
      normalized: { name: 'Maria Lindqvist', organization: 'Karolinska Institutet', location: 'Stockholm, Sweden', orcid: withOrcid.orcid, linkedin_url: 'https://www.linkedin.com/in/maria-lindqvist' },
      topics: expect.arrayContaining(['membrane transporters', 'drug resistance', 'bacterial efflux pumps', 'deep learning']),
      skills: expect.arrayContaining(['teaching bioinformatics', 'building open-source tools', 'python']),
      steps: result.steps,
    });
    expect(result.searchText).toContain('membrane transporters');
    expect(result.searchText).toContain('teaching bioinformatics');
    expect(JSON.parse(JSON.stringify(result.data))).toEqual(result.data);
  });

  it('records what normalisation dropped, and skips topics without text', async () => {
    const result = await createEnrichmentPipeline(OFFLINE_PROVIDERS).enrich(
      person({ name: 'Ada Lovelace', orcid: '0000-0002-1825-0098', linkedinUrl: 'https://example.org/ada' }),
      'quick',
    );
    expect(result.steps).toEqual([
      { step: 'normalize', status: 'succeeded', reason: 'orcid fails the ORCID checksum (ISO 7064 MOD 11-2); dropped; linkedin_url is not a LinkedIn profile URL; dropped' },
      { step: 'topics', status: 'skipped', reason: 'no headline or bio' },
    ]);
    expect(result.normalized).toMatchObject({ orcid: null, linkedinUrl: null });
    expect(result.data).toMatchObject({ topics: [], skills: [] });
    expect(result.searchText).toBe('');
  });

  it('refuses an unknown depth as a programmer error', async () => {
    await expect(createEnrichmentPipeline(OFFLINE_PROVIDERS).enrich(maria, 'extreme' as never)).rejects.toThrow(TypeError);
  });
});

describe('standard tier', () => {
  it('adds the ORCID record and the OpenAlex author found by ORCID iD', async () => {
    const result = await createEnrichmentPipeline(online({ openAlexMailto: 'ops@example.org', openAlexApiKey: 'oa-key-1' })).enrich(maria, 'standard');
    expect(stepsOf(result)).toEqual({ normalize: 'succeeded', topics: 'succeeded', orcid: 'succeeded', openalex: 'succeeded' });
    expect(result.data.orcid).toEqual({
      employments: [
        { organization: 'Karolinska Institutet', role_title: 'Associate Professor', department: 'Department of Medical Biochemistry and Biophysics', start_year: 2019, end_year: null },
        { organization: 'Wellcome Sanger Institute', role_title: 'Postdoctoral Fellow', department: 'Computational Genomics', start_year: 2014, end_year: 2019 },
        { organization: 'Uppsala University', role_title: 'PhD Student', department: 'Department of Cell and Molecular Biology', start_year: 2009, end_year: 2014 },
      ],
      works_count: withOrcid.orcidWorks,
    });
    expect(result.data.openalex).toEqual({
      id: withOrcid.openAlexId,
      matched_by: 'orcid',
      display_name: 'Maria Lindqvist',
      works_count: 68,
      cited_by_count: 2417,
      summary_stats: { h_index: 24, i10_index: 41, '2yr_mean_citedness': 4.81 },
      topics: [
        'Protein Structure and Dynamics',
        'Bacterial Genetics and Antibiotic Resistance',
        'Membrane Transport Proteins and Mechanisms',
        'Machine Learning in Bioinformatics',
        'Cryo-Electron Microscopy Techniques',
      ],
      last_known_institutions: [{ display_name: 'Karolinska Institutet', country_code: 'SE', ror: 'https://ror.org/056d84691' }],
    });
    expect(result.data).not.toHaveProperty('recent_works');
    expect(result.searchText).toContain('Wellcome Sanger Institute');
    expect(result.searchText).toContain('Membrane Transport Proteins and Mechanisms');
    // The polite pool address and the key go to OpenAlex only; neither is kept.
    const identified = replay.requests.filter((r) => r.path.includes('mailto=ops%40example.org') && r.path.includes('api_key=oa-key-1'));
    expect(identified.map((r) => r.path.split('?')[0])).toEqual(['/openalex/authors']);
    expect(replay.requests.filter((r) => r.path.includes('oa-key-1'))).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain('oa-key-1');
  });

  it('finds an author by name at the person’s organisation, passing over a namesake listed first', async () => {
    const result = await createEnrichmentPipeline(online()).enrich(person({ name: byName.name, organization: byName.organization }), 'standard');
    expect(stepsOf(result)).toMatchObject({ orcid: 'skipped: no ORCID iD', openalex: 'succeeded' });
    expect(result.data.openalex).toMatchObject({ id: byName.openAlexId, matched_by: 'name', last_known_institutions: [{ display_name: 'ETH Zurich' }] });
    // Without an organisation only the top result can be taken, and it has the name: the namesake.
    const anywhere = await createEnrichmentPipeline(online()).enrich(person({ name: byName.name }), 'standard');
    expect(anywhere.data.openalex).toMatchObject({ id: byName.namesakeId });
  });

  it('skips ORCID with its reason when the record does not exist, and OpenAlex when nobody matches', async () => {
    const result = await createEnrichmentPipeline(online()).enrich(person({ name: orcidNotFound.name, orcid: orcidNotFound.orcid }), 'standard');
    expect(stepsOf(result)).toMatchObject({ orcid: 'skipped: ORCID record not found', openalex: 'skipped: no matching OpenAlex author' });
    expect(result.data).not.toHaveProperty('orcid');
    expect(result.data).not.toHaveProperty('openalex');
    const nobody = await createEnrichmentPipeline(online()).enrich(person({ name: unknown.name }), 'standard');
    expect(stepsOf(nobody)).toMatchObject({ openalex: 'skipped: no matching OpenAlex author' });
  });

  it('skips a provider that is off, and ORCID for an invalid iD, without a request', async () => {
    const before = replay.requests.length;
    const off = await createEnrichmentPipeline(online({ orcidApiUrl: 'off', openAlexApiUrl: 'off' })).enrich(maria, 'deep', { peers });
    expect(stepsOf(off)).toEqual({
      normalize: 'succeeded',
      topics: 'succeeded',
      orcid: 'skipped: ORCID provider is off',
      openalex: 'skipped: OpenAlex provider is off',
      recent_works: 'skipped: OpenAlex provider is off',
      collaborators: 'skipped: no recent works',
      summary: 'skipped: no summary endpoint configured',
    });
    const invalid = await createEnrichmentPipeline(online({ openAlexApiUrl: 'off' })).enrich(person({ name: 'Ada', orcid: '0000-0002-1825-0098' }), 'standard');
    expect(stepsOf(invalid)).toMatchObject({ orcid: 'skipped: no valid ORCID iD' });
    expect(replay.requests.length).toBe(before);
  });

  it('skips unreachable providers after their retries', async () => {
    const pipeline = createEnrichmentPipeline(online({ orcidApiUrl: 'http://127.0.0.1:1', openAlexApiUrl: 'http://127.0.0.1:1', httpTimeoutMs: 500 }));
    const result = await pipeline.enrich(maria, 'standard');
    expect(stepsOf(result).orcid).toMatch(/^skipped: ORCID unreachable: connection failed/);
    expect(stepsOf(result).openalex).toMatch(/^skipped: OpenAlex unreachable: connection failed/);
  });

  it('succeeds after a retry when a provider fails once', async () => {
    const flaky = await startProviderReplay({ failFirst: 1 });
    try {
      const result = await createEnrichmentPipeline(online({ orcidApiUrl: flaky.orcidUrl, openAlexApiUrl: flaky.openAlexUrl })).enrich(maria, 'standard');
      expect(stepsOf(result)).toMatchObject({ orcid: 'succeeded', openalex: 'succeeded' });
      expect(result.data.orcid).toMatchObject({ works_count: withOrcid.orcidWorks });
      expect(flaky.requests.map((r) => r.path.split('?')[0]).sort()).toEqual([
        '/openalex/authors',
        '/openalex/authors',
        `/orcid/v3.0/${withOrcid.orcid}/employments`,
        `/orcid/v3.0/${withOrcid.orcid}/employments`,
        `/orcid/v3.0/${withOrcid.orcid}/works`,
        `/orcid/v3.0/${withOrcid.orcid}/works`,
      ]);
    } finally {
      await flaky.close();
    }
  });
});

describe('deep tier', () => {
  it('adds recent works, collaborators among the peers and a summary written with the bearer key', async () => {
    const start = replay.requests.length;
    const pipeline = createEnrichmentPipeline(online({ summaryUrl: replay.summaryUrl, summaryApiKey: 'sk-test-4711', summaryModel: 'gpt-4o-mini' }));
    const result = await pipeline.enrich(maria, 'deep', { peers });
    expect(stepsOf(result)).toEqual({
      normalize: 'succeeded',
      topics: 'succeeded',
      orcid: 'succeeded',
      openalex: 'succeeded',
      recent_works: 'succeeded',
      collaborators: 'succeeded',
      summary: 'succeeded',
    });
    const works = result.data.recent_works as { title: string; publication_year: number; doi: string; venue: string; co_authors: { name: string; orcid: string | null }[] }[];
    expect(works).toHaveLength(4);
    expect(works[0]).toEqual({
      title: 'Cryo-EM structures of a bacterial multidrug efflux pump in lipid nanodiscs',
      publication_year: 2025,
      doi: '10.1038/s41467-025-57711-3',
      venue: 'Nature Communications',
      co_authors: [
        { name: 'Tomás Okafor', orcid: coAuthor.orcid },
        { name: 'Priya Raman', orcid: null },
        { name: 'Jonas Berg', orcid: null },
      ],
    });
    expect(works.flatMap((w) => w.co_authors.map((a) => a.name))).not.toContain('Maria Lindqvist');
    expect(result.data.collaborators).toEqual([
      { profile_id: 'p_priya', name: 'priya raman', shared_works: 2 },
      { profile_id: 'p_tomas', name: 'Tomas Okafor', shared_works: 2 },
    ]);
    expect(result.data.summary).toBe(FIXTURE_SUMMARY);
    expect(result.searchText).toContain('Benchmarking AlphaFold-based models for transporter structure prediction');
    expect(result.searchText).toContain(FIXTURE_SUMMARY);
    expect(result.searchText).not.toContain('Jonas Berg');

    expect(requestsSince(start)).toEqual(
      expect.arrayContaining([`GET /openalex/works`, `POST /openai/v1/chat/completions`]),
    );
    const chat = replay.requests.slice(start).find((r) => r.method === 'POST')!;
    expect(chat.headers.authorization).toBe('Bearer sk-test-4711');
    const body = JSON.parse(chat.body!);
    expect(body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.2, max_tokens: 200 });
    expect(body.messages.at(-1).content).toContain('Associate Professor, Department of Medical Biochemistry and Biophysics, Karolinska Institutet (2019–present)');
    expect(JSON.stringify(result)).not.toContain('sk-test-4711');
  });

  it('skips the summary without an endpoint, and records a refusal without the key', async () => {
    const unset = await createEnrichmentPipeline(online()).enrich(maria, 'deep', { peers });
    expect(stepsOf(unset).summary).toBe('skipped: no summary endpoint configured');
    expect(unset.data).not.toHaveProperty('summary');
    const keyless = await createEnrichmentPipeline(online({ summaryUrl: replay.summaryUrl })).enrich(maria, 'deep', { peers });
    expect(stepsOf(keyless).summary).toBe('skipped: summary endpoint refused the request: answered HTTP 401');
  });

  it('skips collaborators without peers, and works without an OpenAlex author', async () => {
    const alone = await createEnrichmentPipeline(online()).enrich(maria, 'deep', { peers: [peers[0]!] });
    expect(stepsOf(alone)).toMatchObject({ recent_works: 'succeeded', collaborators: 'skipped: no community peers' });
    const nobody = await createEnrichmentPipeline(online()).enrich(person({ name: unknown.name, headline: 'Historian' }), 'deep', { peers });
    expect(stepsOf(nobody)).toMatchObject({ recent_works: 'skipped: no OpenAlex author matched', collaborators: 'skipped: no recent works' });
  });

  it('finds the same collaboration from the other side, matched by name', async () => {
    const result = await createEnrichmentPipeline(online()).enrich(person({ profileId: 'p_priya', name: byName.name, organization: byName.organization }), 'deep', { peers });
    expect(result.data.collaborators).toEqual([{ profile_id: 'p_maria', name: withOrcid.name, shared_works: 1 }]);
  });

  it('stops when the signal aborts, with its reason and without further requests', async () => {
    // The providers answer nothing until released: the run ends only if the abort ends it.
    let release = () => {};
    const slow = await startProviderReplay({ hold: new Promise<void>((resolve) => (release = resolve)) });
    try {
      const pipeline = createEnrichmentPipeline(online({ orcidApiUrl: slow.orcidUrl, openAlexApiUrl: slow.openAlexUrl, summaryUrl: slow.summaryUrl, summaryApiKey: 'k' }));
      const controller = new AbortController();
      setTimeout(() => controller.abort(new Error('run cancelled')), 150);
      await expect(pipeline.enrich(maria, 'deep', { peers, signal: controller.signal })).rejects.toThrow('run cancelled');
      release();
      const made = slow.requests.length;
      await new Promise((r) => setTimeout(r, 600));
      expect(slow.requests.length).toBe(made);
      expect(slow.requests.map((r) => r.path.split('?')[0])).not.toContain('/openalex/works');
      // An aborted signal stops it before it starts.
      await expect(pipeline.enrich(maria, 'quick', { signal: controller.signal })).rejects.toThrow('run cancelled');
    } finally {
      await slow.close();
    }
  });
});

describe('providerConfigFrom', () => {
  it('maps the process configuration, leaving unset options out', () => {
    const base = {
      ORCID_API_URL: 'https://pub.orcid.org/v3.0',
      OPENALEX_API_URL: 'off',
      ORCID_RATE_PER_SECOND: 20,
      OPENALEX_RATE_PER_SECOND: 10,
      ENRICHMENT_HTTP_TIMEOUT_MS: 5000,
      ENRICHMENT_HTTP_RETRIES: 2,
      ENRICHMENT_SUMMARY_MODEL: 'gpt-4o-mini',
    };
    expect(providerConfigFrom(base)).toEqual({
      orcidApiUrl: 'https://pub.orcid.org/v3.0',
      openAlexApiUrl: 'off',
      orcidRatePerSecond: 20,
      openAlexRatePerSecond: 10,
      httpTimeoutMs: 5000,
      httpRetries: 2,
      summaryModel: 'gpt-4o-mini',
    });
    expect(
      providerConfigFrom({
        ...base,
        OPENALEX_MAILTO: 'ops@example.org',
        OPENALEX_API_KEY: 'oa-1',
        ENRICHMENT_SUMMARY_URL: 'https://api.openai.com/v1',
        ENRICHMENT_SUMMARY_API_KEY: 'sk-1',
      }),
    ).toMatchObject({ openAlexMailto: 'ops@example.org', openAlexApiKey: 'oa-1', summaryUrl: 'https://api.openai.com/v1', summaryApiKey: 'sk-1' });
  });
});
