// The demo data set seeded on a server's first start, so a new user can try search, profiles and
// enrichment against something that looks like a real expert network. It is generated, not
// stored: a seeded PRNG makes every call return the same ~300 profiles (plus a few hand-written
// ones), so tests, screenshots and docs stay stable, while the word pools below keep the text
// varied enough for search to matter.
import { SCOPES } from '../../services/kit/scopes.js';
import type { SeedInput } from './seed-schema.js';

type Profile = NonNullable<SeedInput['profiles']>[number];
type Membership = NonNullable<SeedInput['memberships']>[number];
type Community = NonNullable<SeedInput['communities']>[number];

// Word pools. Names mix many cultures; a few carry diacritics so slug/email derivation is exercised.
const FIRST_NAMES = [
  'Aisha', 'Mateo', 'Yuki', 'Olusegun', 'Priya', 'Liam', 'Mei', 'Kwame', 'Sofia', 'Arjun', 'Fatima', 'Lars',
  'Chloé', 'Tariq', 'Ingrid', 'Hiroshi', 'Amara', 'Diego', 'Nadia', 'Jonas', 'Leila', 'Kofi', 'Elena', 'Rahul',
  'Zanele', 'Tomás', 'Hana', 'Emeka', 'Anya', 'Marco', 'Siddharth', 'Camila', 'Jae-won', 'Astrid', 'Mohammed',
  'Valentina', 'Ravi', 'Ngozi', 'Pedro', 'Sakura', 'Omar', 'Freya', 'Thabo', 'Lucía', 'Dmitri', 'Ayesha', 'Kai',
  'Isabela', 'Wei', 'Noa', 'Farhan', 'Maren', 'Adebayo', 'Gabriel', 'Linh', 'Sven', 'Zeynep', 'Rohan', 'Malia',
  'Joaquín', 'Esra', 'Minh', 'Björn', 'Ama', 'Carlos', 'Shreya', 'Alejandro', 'Yara', 'Tevita', 'Nkechi',
  'Sebastián', 'Aleksandra', 'Hamza', 'Eun-ji', 'Rafael', 'Kalani', 'Ines', 'Bongani',
];

const LAST_NAMES = [
  'Okafor', 'García', 'Tanaka', 'Nguyen', 'Patel', 'Müller', 'Chen', 'Mensah', 'Rossi', 'Kowalski', 'Haddad',
  'Andersson', 'Dubois', 'Khan', 'Nakamura', 'Adeyemi', 'Fernández', 'Ivanova', 'Park', 'Silva', 'Schmidt',
  'Mbeki', 'Yılmaz', 'Sharma', 'Kim', 'Hernández', 'Novak', 'Osei', 'Larsen', 'Wang', 'Rahman', 'Costa', 'Sato',
  'Abdullah', 'Jensen', 'Moreau', 'Gupta', 'Li', 'Ramírez', 'Petrov', 'Eze', 'Lindqvist', 'Suzuki', 'Bianchi',
  'Tran', 'Dlamini', 'Hoffmann', 'Reyes', 'Iyer', 'Cohen', 'Kaur', 'Alvarez', 'Zhang', 'Nielsen', 'Mwangi',
  'Öztürk', 'Fujita', 'Castillo', 'Banerjee', 'Kealoha', 'Horvath', 'Santos', 'Wiśniewski', 'Achebe', 'Lopes',
  "O'Brien", 'Van der Berg', 'Moana', 'Bakr', 'Ferreira', 'Choi', 'Murphy', 'Aziz', 'Halvorsen',
];

const ACADEMIC_TITLES = [
  'PhD Candidate', 'Postdoctoral Researcher', 'Research Fellow', 'Assistant Professor',
  'Associate Professor', 'Professor', 'Senior Lecturer', 'Staff Scientist', 'Principal Investigator',
  'Research Scientist', 'Group Leader', 'Visiting Researcher',
];

const EMAIL_DOMAINS = ['example.org', 'mail.example.org', 'uni.example.org', 'lab.example.org', 'research.example.org'];

// One entry per community: what its members work on, how, and for what. Topics deliberately
// include synonyms ("protein folding" / "structure prediction", "LLMs" / "large language
// models") so the demo shows that search has to cope with different wordings of one idea.
interface Field {
  community: Community;
  weight: number; // share of the generated profiles
  roles: string[]; // field-specific job titles, used next to the academic ones
  topics: string[];
  methods: string[];
  applications: string[];
  orgs: [name: string, location: string][]; // location is where most of its people live
}

const FIELDS: Field[] = [
  {
    community: { id: 'c_structural_biology', name: 'Structural Biology Exchange', owner: { organization: 'o_demo_lab' }, archived: false, api_writes: true },
    weight: 0.2,
    roles: ['Structural Biologist', 'Cryo-EM Facility Manager', 'Computational Biologist', 'Biophysicist'],
    topics: ['protein folding', 'protein structure prediction', 'membrane protein structure', 'ion channel gating',
      'GPCR signalling', 'enzyme mechanisms', 'intrinsically disordered proteins', 'protein-protein interactions',
      'antibody engineering', 'ribosome structure', 'viral glycoproteins', 'allosteric regulation',
      'structure-based drug design', 'de novo protein design'],
    methods: ['cryo-electron microscopy', 'cryo-EM single-particle analysis', 'X-ray crystallography', 'NMR spectroscopy',
      'molecular dynamics simulations', 'AlphaFold-based modelling', 'hydrogen-deuterium exchange mass spectrometry',
      'small-angle X-ray scattering (SAXS)', 'cryo-electron tomography', 'isothermal titration calorimetry',
      'deep-learning structure prediction', 'native mass spectrometry'],
    applications: ['drug discovery', 'vaccine design', 'antibiotic resistance', 'rare genetic disorders',
      'industrial enzyme engineering', 'neurodegenerative disease'],
    orgs: [
      ['MRC Laboratory of Molecular Biology', 'Cambridge, United Kingdom'], ['EMBL Heidelberg', 'Heidelberg, Germany'],
      ['Scripps Research', 'La Jolla, United States'], ['Weizmann Institute of Science', 'Rehovot, Israel'],
      ['Max Planck Institute of Biochemistry', 'Martinsried, Germany'], ['University of Tokyo', 'Tokyo, Japan'],
      ['Institut Pasteur', 'Paris, France'], ['Helixa Therapeutics', 'Boston, United States'],
      ['University of São Paulo', 'São Paulo, Brazil'], ['Karolinska Institutet', 'Stockholm, Sweden'],
      ['Northwind Research Lab', 'Copenhagen, Denmark'],
    ],
  },
  {
    community: { id: 'c_machine_learning', name: 'Applied Machine Learning Circle', owner: { organization: 'o_demo_lab' }, archived: false, api_writes: true },
    weight: 0.25,
    roles: ['Machine Learning Engineer', 'Applied Scientist', 'Data Scientist', 'Research Engineer', 'ML Team Lead'],
    topics: ['large language models', 'LLM evaluation', 'LLMs for code generation', 'reinforcement learning',
      'graph neural networks', 'computer vision', 'self-supervised learning', 'causal inference',
      'federated learning', 'model interpretability', 'speech recognition', 'recommender systems',
      'diffusion models', 'retrieval-augmented generation (RAG)', 'Bayesian optimisation', 'time-series forecasting'],
    methods: ['transformer architectures', 'PyTorch', 'JAX', 'contrastive learning', 'RLHF',
      'parameter-efficient fine-tuning (LoRA)', 'gradient-boosted trees', 'variational inference', 'Gaussian processes',
      'knowledge distillation', 'mixture-of-experts models', 'convolutional neural networks', 'vector search'],
    applications: ['medical imaging', 'robotics', 'search ranking', 'fraud detection', 'scientific discovery',
      'low-resource languages', 'autonomous driving', 'education technology'],
    orgs: [
      ['ETH Zurich', 'Zurich, Switzerland'], ['Mila – Quebec AI Institute', 'Montreal, Canada'],
      ['Carnegie Mellon University', 'Pittsburgh, United States'], ['Tsinghua University', 'Beijing, China'],
      ['KAIST', 'Daejeon, South Korea'], ['University of Edinburgh', 'Edinburgh, United Kingdom'],
      ['Indian Institute of Science', 'Bengaluru, India'], ['Vectorial AI', 'Lagos, Nigeria'],
      ['Lumen Labs', 'Singapore, Singapore'], ['Helsinki Institute for Information Technology', 'Helsinki, Finland'],
      ['Northwind Research Lab', 'Copenhagen, Denmark'],
    ],
  },
  {
    community: { id: 'c_climate_science', name: 'Climate & Earth System Science Network', owner: { user: 'u_demo' }, archived: false, api_writes: true },
    weight: 0.2,
    roles: ['Climate Scientist', 'Oceanographer', 'Glaciologist', 'Atmospheric Physicist', 'Climate Data Analyst'],
    topics: ['sea-level rise', 'Arctic sea ice', 'monsoon variability', 'carbon cycle feedbacks', 'extreme heat events',
      'ocean heat uptake', 'aerosol-cloud interactions', 'permafrost thaw', 'drought attribution',
      'glacier mass balance', 'atmospheric rivers', 'paleoclimate', 'extreme event attribution',
      'El Niño–Southern Oscillation (ENSO)'],
    methods: ['Earth system models', 'general circulation models (GCMs)', 'satellite remote sensing', 'ice-core analysis',
      'Argo float observations', 'statistical downscaling', 'ensemble climate projections', 'data assimilation',
      'eddy covariance flux towers', 'machine-learning emulators', 'CMIP6 model intercomparison', 'radar altimetry'],
    applications: ['adaptation planning', 'flood risk', 'agricultural resilience', 'coastal management',
      'energy transition policy', 'climate-related insurance risk'],
    orgs: [
      ['Potsdam Institute for Climate Impact Research', 'Potsdam, Germany'], ['NCAR', 'Boulder, United States'],
      ['British Antarctic Survey', 'Cambridge, United Kingdom'], ['CSIRO', 'Melbourne, Australia'],
      ['University of Bergen', 'Bergen, Norway'], ['Indian Institute of Tropical Meteorology', 'Pune, India'],
      ['University of Cape Town', 'Cape Town, South Africa'], ['Met Office Hadley Centre', 'Exeter, United Kingdom'],
      ['Stratus Climate Analytics', 'Auckland, New Zealand'], ['University of Washington', 'Seattle, United States'],
    ],
  },
  {
    community: { id: 'c_public_health', name: 'Global Public Health Forum', owner: { organization: 'o_demo_lab' }, archived: false, api_writes: false },
    weight: 0.2,
    roles: ['Epidemiologist', 'Biostatistician', 'Public Health Physician', 'Health Economist', 'Programme Manager'],
    topics: ['malaria', 'tuberculosis control', 'HIV prevention', 'vaccine hesitancy', 'maternal and child health',
      'antimicrobial resistance (AMR)', 'non-communicable diseases', 'type 2 diabetes', 'mental health',
      'health equity', 'pandemic preparedness', 'COVID-19 epidemiology', 'air pollution and health', 'dengue',
      'tobacco control', 'child nutrition'],
    methods: ['prospective cohort studies', 'randomised controlled trials', 'infectious disease modelling',
      'compartmental (SIR) models', 'genomic surveillance', 'mixed-methods research', 'cost-effectiveness analysis',
      'geospatial analysis', 'household survey design', 'systematic reviews and meta-analysis', 'case-control studies',
      'wastewater surveillance'],
    applications: ['health policy', 'low- and middle-income countries', 'primary care', 'outbreak response',
      'community health worker programmes', 'universal health coverage'],
    orgs: [
      ['London School of Hygiene & Tropical Medicine', 'London, United Kingdom'], ['Johns Hopkins Bloomberg School of Public Health', 'Baltimore, United States'],
      ['icddr,b', 'Dhaka, Bangladesh'], ['Makerere University', 'Kampala, Uganda'],
      ['Fiocruz', 'Rio de Janeiro, Brazil'], ['KEMRI-Wellcome Trust Research Programme', 'Kilifi, Kenya'],
      ['Swiss Tropical and Public Health Institute', 'Basel, Switzerland'], ['Public Health Foundation of India', 'New Delhi, India'],
      ['Kinara Health', 'Accra, Ghana'],
    ],
  },
  {
    community: { id: 'c_materials_science', name: 'Materials Discovery Collective', owner: { organization: 'o_demo_lab' }, archived: false, api_writes: true },
    weight: 0.15,
    roles: ['Materials Scientist', 'Electrochemist', 'Process Engineer', 'Computational Materials Scientist'],
    topics: ['perovskite solar cells', 'solid-state batteries', 'lithium-ion battery cathodes', '2D materials such as graphene',
      'high-entropy alloys', 'metal-organic frameworks (MOFs)', 'thermoelectrics', 'polymer composites',
      'electrocatalysts for green hydrogen', 'superconductors', 'corrosion resistance', 'metal additive manufacturing',
      'semiconductor thin films'],
    methods: ['density functional theory (DFT)', 'first-principles calculations', 'transmission electron microscopy (TEM)',
      'X-ray diffraction', 'atomic layer deposition', 'high-throughput screening', 'machine-learned interatomic potentials',
      'Raman spectroscopy', 'synchrotron characterisation', 'chemical vapour deposition', 'electrochemical impedance spectroscopy',
      'atom probe tomography'],
    applications: ['energy storage', 'photovoltaics', 'aerospace components', 'carbon capture', 'next-generation electronics',
      'sustainable packaging'],
    orgs: [
      ['MIT', 'Cambridge, United States'], ['National Institute for Materials Science (NIMS)', 'Tsukuba, Japan'],
      ['RWTH Aachen University', 'Aachen, Germany'], ['Argonne National Laboratory', 'Lemont, United States'],
      ['Nanyang Technological University', 'Singapore, Singapore'], ['Imperial College London', 'London, United Kingdom'],
      ['Quanta Materials', 'Shenzhen, China'], ['University of Manchester', 'Manchester, United Kingdom'],
      ['Fraunhofer Institute for Solar Energy Systems', 'Freiburg, Germany'], ['Northwind Research Lab', 'Copenhagen, Denmark'],
    ],
  },
];

// Every city that hosts an organization: where the remote minority of people live.
const ALL_LOCATIONS = [...new Set(FIELDS.flatMap((f) => f.orgs.map(([, location]) => location)))];

// Deterministic randomness: mulberry32, a tiny 32-bit PRNG. Good enough for demo data and
// identical across Node versions, unlike Math.random.
const SEED = 0x5eed_2024;
const PROFILE_COUNT = 300;

type Rng = () => number;

function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)]!;
}

/** A second pick that differs from `not`, so sentences never repeat the same topic twice. */
function pickOther<T>(rng: Rng, items: readonly T[], not: T): T {
  const rest = items.filter((x) => x !== not);
  return pick(rng, rest.length > 0 ? rest : items);
}

function chance(rng: Rng, p: number): boolean {
  return rng() < p;
}

function pickField(rng: Rng): Field {
  let r = rng();
  for (const f of FIELDS) if ((r -= f.weight) < 0) return f;
  return FIELDS[FIELDS.length - 1]!;
}

// Joins spread over 2024-01-01 .. 2026-10-31 (UTC), whole minutes, computed from fixed bounds.
const JOIN_START = Date.UTC(2024, 0, 1);
const JOIN_END = Date.UTC(2026, 9, 31, 23, 59);

function joinedAt(rng: Rng): string {
  const minutes = Math.floor((rng() * (JOIN_END - JOIN_START)) / 60_000);
  return new Date(JOIN_START + minutes * 60_000).toISOString();
}

/** ASCII slug of a name: diacritics dropped (dotless ı has no decomposition), the rest removed. */
function slug(text: string): string {
  return text.normalize('NFD').toLowerCase().replace(/ı/g, 'i').replace(/[^a-z0-9]/g, '');
}

/** ISO 7064 MOD 11-2 check character, as ORCID defines it (10 is written 'X'). */
function orcidCheckDigit(base15: string): string {
  let total = 0;
  for (const ch of base15) total = (total + Number(ch)) * 2;
  const result = (12 - (total % 11)) % 11;
  return result === 10 ? 'X' : String(result);
}

// Real iDs are issued from the 0000-0001.. 0000-0003 blocks, so the demo ones look alike.
function orcid(rng: Rng): string {
  let base = `0000000${pick(rng, ['1', '2', '3'])}`;
  while (base.length < 15) base += String(Math.floor(rng() * 10));
  const full = base + orcidCheckDigit(base);
  return `${full.slice(0, 4)}-${full.slice(4, 8)}-${full.slice(8, 12)}-${full.slice(12)}`;
}

// Text generation: headlines and 2-3 sentence bios from templates filled with a field's pools.
interface Ctx {
  first: string; title: string; org: string; application: string;
  topic: string; topic2: string; method: string; method2: string;
}

const HEADLINES: ((c: Ctx) => string)[] = [
  (c) => `${c.title} working on ${c.topic}`,
  (c) => `${c.title} · ${c.topic}`,
  (c) => `${c.title} at ${c.org} | ${c.topic}`,
  (c) => `${c.topic} and ${c.topic2} | ${c.method}`,
  (c) => `${c.title} — ${c.method} for ${c.application}`,
  (c) => `Researching ${c.topic} with ${c.method}`,
];

const OPENINGS: ((c: Ctx) => string)[] = [
  (c) => `${c.first} studies ${c.topic} with a focus on ${c.application}.`,
  (c) => `${c.first}'s research uses ${c.method} to understand ${c.topic}.`,
  (c) => `${c.first} leads a small team at ${c.org} working on ${c.topic}.`,
  (c) => `${c.first} works at the intersection of ${c.topic} and ${c.topic2}.`,
  (c) => `${c.first} (${c.title}) explores how ${c.method} can advance ${c.application}.`,
];

const MIDDLES: ((c: Ctx) => string)[] = [
  (c) => `Day-to-day work involves ${c.method} and ${c.method2}.`,
  (c) => `Recent projects combine ${c.method} with ${c.method2} to study ${c.topic2}.`,
  (c) => `Has built open-source tooling for ${c.method2} used by several collaborating groups.`,
  (c) => `Trained in ${c.method2} before moving into ${c.topic}.`,
  (c) => `Current work applies ${c.method} to questions in ${c.topic2}.`,
];

const CLOSINGS: ((c: Ctx) => string)[] = [
  (c) => `Happy to talk about ${c.application}.`,
  (c) => `Open to collaborations on ${c.topic2}.`,
  () => 'Also mentors early-career researchers and reviews for journals in the field.',
  (c) => `Regularly advises industry partners on ${c.application}.`,
  () => 'Enjoys teaching and science communication.',
];

/** Upper-cases the first letter: headlines may start with a lower-case topic. */
function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function makeProfile(rng: Rng, index: number, field: Field): Profile {
  const first = pick(rng, FIRST_NAMES);
  const last = pick(rng, LAST_NAMES);
  const id = `p_${String(index).padStart(4, '0')}`;
  const [org, orgLocation] = pick(rng, field.orgs);
  const topic = pick(rng, field.topics);
  const method = pick(rng, field.methods);
  const title = chance(rng, 0.5) ? pick(rng, field.roles) : pick(rng, ACADEMIC_TITLES);
  const ctx: Ctx = {
    first, title, org, topic, method, application: pick(rng, field.applications),
    topic2: pickOther(rng, field.topics, topic), method2: pickOther(rng, field.methods, method),
  };
  const sentences = [pick(rng, OPENINGS)(ctx), pick(rng, MIDDLES)(ctx)];
  if (chance(rng, 0.6)) sentences.push(pick(rng, CLOSINGS)(ctx));

  const headline = capitalise(pick(rng, HEADLINES)(ctx));
  const profile: Profile = { id, public: chance(rng, 0.6), name: `${first} ${last}`, headline };
  // A few profiles are sparse on purpose: real rosters always have gaps.
  if (chance(rng, 0.93)) profile.bio = sentences.join(' ');
  if (chance(rng, 0.95)) profile.organization = ctx.org;
  // Most people live where their organization is; some work remotely from elsewhere.
  if (chance(rng, 0.92)) profile.location = chance(rng, 0.8) ? orgLocation : pick(rng, ALL_LOCATIONS);
  // Every address carries the index, so emails are unique however the names repeat.
  const f = slug(first);
  const l = slug(last);
  if (chance(rng, 0.7)) {
    const local = pick(rng, [`${f}.${l}.${index}`, `${f[0]}${l}${index}`, `${f}_${l}_${index}`]);
    profile.email = `${local}@${pick(rng, EMAIL_DOMAINS)}`;
  }
  if (chance(rng, 0.4)) {
    const suffix = `${index.toString(36)}${Math.floor(rng() * 1296).toString(36)}`;
    profile.linkedin_url = `https://www.linkedin.com/in/${f}-${l}-${suffix}`;
  }
  if (chance(rng, 0.45)) profile.orcid = orcid(rng);
  if (chance(rng, 0.5)) profile.avatar_url = `https://avatars.example.org/${id}.png`;
  return profile;
}

// Hand-written people beside the generated ones: what searchers in these communities ask for and
// the generator's pools do not cover (genome editing, Nairobi, chemistry with graph neural
// networks, clinicians), plus look-alikes that share one word with such a request and should rank
// below the person who fits (a grants manager who reviews applications, a climate scientist in
// Nairobi, an epidemiologist elsewhere, a statistician of floods). Fixed text, fixed ids after the
// generated ones, no draw from the PRNG: the generated profiles are the same as without them.
// The natural-language search suite (test/search-requests.test.ts) judges requests against them.
const HAND_WRITTEN: { profile: Profile; communities: string[]; joined_at: string }[] = [
  {
    profile: {
      id: 'p_0301', public: true, name: 'Wanjiru Kamau', headline: 'Epidemiologist · malaria transmission and bed-net coverage',
      bio: 'Wanjiru leads field studies of malaria transmission in western Kenya, combining household surveys with genomic surveillance of the parasite. She also trains county health officers in outbreak investigation.',
      organization: 'Kenya Medical Research Institute (KEMRI)', location: 'Nairobi, Kenya',
    },
    communities: ['c_public_health'], joined_at: '2025-02-11T08:30:00.000Z',
  },
  {
    profile: {
      id: 'p_0302', public: true, name: 'Otieno Odhiambo', headline: 'Infectious disease epidemiologist | cholera and typhoid outbreak response',
      bio: "Otieno works with Kenya's Ministry of Health on cholera outbreak response and the surveillance of typhoid in informal settlements, and teaches field epidemiology.",
      organization: 'African Population and Health Research Center', location: 'Nairobi, Kenya',
    },
    communities: ['c_public_health', 'c_climate_science'], joined_at: '2025-04-02T13:10:00.000Z',
  },
  {
    profile: {
      id: 'p_0303', public: true, name: 'Grace Njoroge', headline: 'Climate Data Analyst · East African rainfall variability',
      bio: 'Grace builds seasonal rainfall forecasts for East Africa and works with farmers’ cooperatives on drought early warning.',
      organization: 'IGAD Climate Prediction and Applications Centre', location: 'Nairobi, Kenya',
    },
    communities: ['c_climate_science'], joined_at: '2025-05-19T09:45:00.000Z',
  },
  {
    profile: {
      id: 'p_0304', public: true, name: 'Tomás Herrera', headline: 'Epidemiologist working on dengue and Zika',
      bio: 'Tomás models dengue and Zika transmission in Colombian cities and evaluates mosquito control campaigns.',
      organization: 'Universidad de Antioquia', location: 'Medellín, Colombia',
    },
    communities: ['c_public_health'], joined_at: '2024-11-07T16:20:00.000Z',
  },
  {
    profile: {
      id: 'p_0305', public: true, name: 'Hannah Lindgren', headline: 'Group Leader | CRISPR base editing and prime editing',
      bio: 'Hannah’s lab develops CRISPR-Cas9 base editors that correct the point mutations behind inherited blood disorders, and measures off-target gene editing in human stem cells. She sits on grant review panels for gene therapy programmes.',
      organization: 'Karolinska Institutet', location: 'Stockholm, Sweden',
    },
    communities: ['c_structural_biology'], joined_at: '2024-09-23T10:00:00.000Z',
  },
  {
    profile: {
      id: 'p_0306', public: true, name: 'Rajesh Menon', headline: 'Plant biotechnologist · genome editing of rice for drought tolerance',
      bio: 'Rajesh uses CRISPR-Cas12a to knock out genes that limit drought tolerance in rice, and runs field trials of the edited lines with partner farms.',
      organization: 'International Rice Research Institute', location: 'Los Baños, Philippines',
    },
    communities: ['c_climate_science', 'c_structural_biology'], joined_at: '2025-01-15T07:40:00.000Z',
  },
  {
    profile: {
      id: 'p_0307', public: true, name: 'Marguerite Fontaine', headline: 'Research Grants Manager',
      bio: 'Marguerite runs the review of grant applications for a foundation’s climate programme and advises applicants on budgets and reporting.',
      organization: 'Fondation Horizon', location: 'Paris, France',
    },
    communities: ['c_climate_science'], joined_at: '2025-03-03T11:25:00.000Z',
  },
  {
    profile: {
      id: 'p_0308', public: true, name: 'Li Na Zhou', headline: 'Computational Chemist | graph neural networks for molecular property prediction',
      bio: 'Li Na builds message-passing graph neural networks that predict the solubility, toxicity and binding affinity of small molecules, and uses them to choose which compounds to synthesise next.',
      organization: 'Tsinghua University', location: 'Beijing, China',
    },
    communities: ['c_machine_learning', 'c_materials_science'], joined_at: '2024-08-12T06:15:00.000Z',
  },
  {
    profile: {
      id: 'p_0309', public: true, name: 'Samuel Brooks', headline: 'Machine Learning Scientist, drug discovery',
      bio: 'Samuel trains generative models that propose drug candidates and predicts the absorption and toxicity of molecules before they are made. Previously built virtual screening pipelines for kinase inhibitors.',
      organization: 'Helixa Therapeutics', location: 'Boston, United States',
    },
    communities: ['c_machine_learning', 'c_structural_biology'], joined_at: '2024-10-30T14:05:00.000Z',
  },
  {
    profile: {
      id: 'p_0310', public: true, name: 'Inês Carvalho', headline: 'Neuroscientist · memory circuits of the hippocampus',
      bio: 'Inês records the activity of neurons in the mouse brain to learn how memories are stored, and how they fade in Alzheimer’s disease; she decodes the recordings with deep learning.',
      organization: 'Champalimaud Foundation', location: 'Lisbon, Portugal',
    },
    communities: ['c_machine_learning'], joined_at: '2025-06-21T12:00:00.000Z',
  },
  {
    profile: {
      id: 'p_0311', public: true, name: 'Kwabena Asante', headline: 'Consultant Cardiologist | heart failure and cardiac imaging',
      bio: 'Kwabena treats patients with heart failure and leads a cardiac MRI research programme on hypertension-related heart disease in West Africa.',
      organization: 'Korle Bu Teaching Hospital', location: 'Accra, Ghana',
    },
    communities: ['c_public_health'], joined_at: '2025-07-08T09:00:00.000Z',
  },
  {
    profile: {
      id: 'p_0312', public: true, name: "Margaret O'Neill", headline: 'Biostatistician · design and analysis of clinical trials',
      bio: 'Margaret designs adaptive randomised clinical trials of HIV and tuberculosis treatments and writes their statistical analysis plans; she sits on data monitoring committees.',
      organization: 'MRC Clinical Trials Unit at UCL', location: 'London, United Kingdom',
    },
    communities: ['c_public_health'], joined_at: '2024-12-02T15:30:00.000Z',
  },
  {
    profile: {
      id: 'p_0313', public: true, name: 'Arash Karimi', headline: 'Statistician · extreme value statistics for flood risk',
      bio: 'Arash fits extreme value models to river gauge records and advises insurers on flood risk.',
      organization: 'University of Bergen', location: 'Bergen, Norway',
    },
    communities: ['c_climate_science'], joined_at: '2025-08-14T10:50:00.000Z',
  },
  {
    profile: {
      id: 'p_0314', public: true, name: 'Amina Yusuf', headline: 'Public health nutritionist | child stunting and school meals',
      bio: 'Amina evaluates school meal programmes and their effect on child stunting in Kenyan counties, working with county health departments.',
      organization: 'Maseno University', location: 'Kisumu, Kenya',
    },
    communities: ['c_public_health'], joined_at: '2025-09-01T08:10:00.000Z',
  },
];

// Profiles claimed by the non-demo users. profiles.user_id is UNIQUE, so one profile per user.
const CLAIMS = [
  { index: 12, user: 'u_free', plan: 'free' },
  { index: 57, user: 'u_trial', plan: 'trial' },
] as const;

export function demoSeed(): SeedInput {
  const rng = mulberry32(SEED);
  const profiles: Profile[] = [];
  const memberships: Membership[] = [];
  const seenOrcids = new Set<string>();
  const communityIds = FIELDS.map((f) => f.community.id);

  // The demo user's own profile: public, admin of two communities, member of a third.
  profiles.push({
    id: 'p_demo',
    user: 'u_demo',
    public: true,
    name: 'Demo User',
    headline: 'Research Engineer · machine learning for climate and structural biology',
    bio: 'Demo account of the Expert Network API. Admin of the machine learning and climate communities, member of the public health forum.',
    organization: 'Northwind Research Lab',
    location: 'Copenhagen, Denmark',
    email: 'demo@example.org',
    avatar_url: 'https://avatars.example.org/p_demo.png',
  });
  memberships.push(
    { community: 'c_machine_learning', profile: 'p_demo', role: 'admin', joined_at: '2024-01-02T09:00:00.000Z' },
    { community: 'c_climate_science', profile: 'p_demo', role: 'admin', joined_at: '2024-01-02T09:05:00.000Z' },
    { community: 'c_public_health', profile: 'p_demo', role: 'member', joined_at: '2024-03-14T15:30:00.000Z' },
  );

  for (let i = 1; i <= PROFILE_COUNT; i++) {
    const field = pickField(rng);
    const profile = makeProfile(rng, i, field);
    // Collisions are astronomically rare, but the iD must stay unique, so just drop a repeat.
    if (profile.orcid) {
      if (seenOrcids.has(profile.orcid)) delete profile.orcid;
      else seenOrcids.add(profile.orcid);
    }
    profiles.push(profile);

    // Home community from the field; about a third also sit in a second one.
    const role = () => (chance(rng, 0.04) ? 'admin' : 'member');
    memberships.push({ community: field.community.id, profile: profile.id, role: role(), joined_at: joinedAt(rng) });
    if (chance(rng, 0.3)) {
      const other = pickOther(rng, communityIds, field.community.id);
      memberships.push({ community: other, profile: profile.id, role: role(), joined_at: joinedAt(rng) });
    }
  }

  for (const person of HAND_WRITTEN) {
    profiles.push({ ...person.profile });
    for (const community of person.communities) {
      memberships.push({ community, profile: person.profile.id, role: 'member', joined_at: person.joined_at });
    }
  }

  // Claimed profiles are public and carry their owner's address, like a real claimed profile.
  const users: NonNullable<SeedInput['users']> = [
    { id: 'u_demo', email: 'demo@example.org', name: 'Demo User', plan: 'paid' },
  ];
  for (const claim of CLAIMS) {
    const profile = profiles[claim.index]!; // index 0 is p_demo, so profiles[i] is p_000i
    const email = `${slug(profile.name.split(' ')[0]!)}.${claim.user.slice(2)}@example.org`;
    Object.assign(profile, { user: claim.user, public: true, email });
    users.push({ id: claim.user, email, name: profile.name, plan: claim.plan });
  }

  return {
    users,
    organizations: [
      {
        id: 'o_demo_lab',
        name: 'Northwind Research Lab',
        members: [
          { user: 'u_demo', role: 'owner', joined_at: '2024-01-01T08:00:00.000Z' },
          { user: 'u_trial', role: 'member', joined_at: '2025-06-02T10:15:00.000Z' },
        ],
      },
    ],
    communities: FIELDS.map((f) => ({ ...f.community })),
    profiles,
    memberships,
    wallets: [
      { owner: { user: 'u_demo' }, balance: 1000 },
      { owner: { organization: 'o_demo_lab' }, balance: 5000 },
    ],
    // No secret: the server mints one on first start and prints it once.
    keys: [{ id: 'key_demo', owner: { user: 'u_demo' }, scopes: [...SCOPES], environment: 'test' }],
  };
}
