// A deterministic synthetic corpus of expert profiles and a judged query set, for the search
// quality suite. Profiles describe people in the words of their trade ("cardiologist",
// "echocardiography"); topical queries use other words ("heart doctor"), the way a searcher does.
// Distractors are built in: PhD holders are "doctors", teachers care about "learning", marketers
// put their "heart" into campaigns. Same seed, same corpus, on every machine.
import { mulberry32 } from '../../deploy/admin/demo-data/random.js';
import type { Queryable } from '../../services/kit/db/database.js';

export interface Profile {
  profileId: string;
  userId: string;
  name: string;
  headline: string;
  bio: string;
  organization: string;
  location: string;
  enrichmentText: string;
  /** Ground truth, never indexed. */
  specialty: string;
  secondary: string | null;
}

export interface JudgedQuery {
  query: string;
  kind: 'name' | 'organization' | 'location' | 'topic' | 'topic+location' | 'topic+organization';
  /** profileId → grade (2 highly relevant, 1 partly). */
  relevant: Map<string, number>;
}

interface Specialty {
  key: string;
  titles: string[];
  topics: string[];
  orgs: string[];
  /** Queries in the searcher's words, not the profiles'. */
  queries: string[];
}

const SPECIALTIES: Specialty[] = [
  {
    key: 'cardiology',
    titles: ['Cardiologist', 'Interventional Cardiologist', 'Cardiac Electrophysiologist', 'Consultant Cardiologist'],
    topics: ['coronary angioplasty', 'arrhythmia management', 'echocardiography', 'cardiac imaging', 'valve disease', 'hypertension clinics'],
    orgs: ['St. Brigid Hospital', 'Northwind Health', 'Meridian Cardiac Institute'],
    queries: ['heart doctor', 'heart specialist for arrhythmia'],
  },
  {
    key: 'nephrology',
    titles: ['Nephrologist', 'Transplant Nephrologist', 'Renal Physician'],
    topics: ['dialysis programs', 'chronic renal disease', 'renal transplantation', 'glomerular disease', 'electrolyte disorders'],
    orgs: ['St. Brigid Hospital', 'Northwind Health', 'Lakeside Renal Centre'],
    queries: ['kidney doctor', 'kidney failure treatment'],
  },
  {
    key: 'dermatology',
    titles: ['Dermatologist', 'Dermatologic Surgeon', 'Paediatric Dermatologist'],
    topics: ['melanoma screening', 'psoriasis', 'eczema', 'acne scarring', 'mohs surgery', 'cutaneous lymphoma'],
    orgs: ['ClearDerm Clinics', 'Northwind Health', 'St. Brigid Hospital'],
    queries: ['skin doctor', 'skin rash specialist'],
  },
  {
    key: 'oncology',
    titles: ['Oncologist', 'Radiation Oncologist', 'Medical Oncologist', 'Hematologist-Oncologist'],
    topics: ['chemotherapy', 'tumour biology', 'immunotherapy trials', 'radiotherapy planning', 'leukemia', 'breast carcinoma'],
    orgs: ['Halcyon Cancer Centre', 'St. Brigid Hospital', 'Northwind Health'],
    queries: ['cancer doctor', 'cancer treatment research'],
  },
  {
    key: 'machine-learning',
    titles: ['Deep Learning Researcher', 'Data Scientist', 'Research Scientist, Neural Networks', 'Computer Vision Engineer'],
    topics: ['neural networks', 'transformer models', 'convolutional networks', 'gradient boosting', 'representation learning', 'model training at scale'],
    orgs: ['Contoso Labs', 'Helix AI', 'Fabrikam Research'],
    queries: ['machine learning', 'artificial intelligence models'],
  },
  {
    key: 'software',
    titles: ['Software Engineer', 'Backend Developer', 'Staff Engineer, Platform', 'Site Reliability Engineer'],
    topics: ['distributed systems', 'microservices', 'database internals', 'kubernetes operations', 'api design', 'compilers'],
    orgs: ['Contoso Labs', 'Tailspin Software', 'Fabrikam Research'],
    queries: ['programmer', 'coding scalable backend systems'],
  },
  {
    key: 'ip-law',
    titles: ['Patent Attorney', 'Intellectual Property Counsel', 'Trademark Lawyer'],
    topics: ['patent prosecution', 'trademark disputes', 'licensing agreements', 'patent litigation', 'trade secrets'],
    orgs: ['Baker & Lowe LLP', 'Whitfield Legal', 'Contoso Labs'],
    queries: ['patent lawyer', 'intellectual property attorney'],
  },
  {
    key: 'tax',
    titles: ['Certified Public Accountant', 'Tax Advisor', 'Tax Manager'],
    topics: ['corporate taxation', 'vat compliance', 'transfer pricing', 'audit preparation', 'bookkeeping'],
    orgs: ['Ledgerline Partners', 'Whitfield Legal', 'Granite Advisory'],
    queries: ['tax accountant', 'accounting expert for taxes'],
  },
  {
    key: 'architecture',
    titles: ['Architect', 'Urban Designer', 'Landscape Architect'],
    topics: ['sustainable building design', 'residential architecture', 'urban planning', 'adaptive reuse', 'passive house standards'],
    orgs: ['Studio Arcadia', 'Granite Advisory', 'Civic Works Bureau'],
    queries: ['building designer', 'city planning'],
  },
  {
    key: 'marketing',
    titles: ['Marketing Director', 'Brand Strategist', 'Growth Marketer'],
    topics: ['digital advertising', 'search engine optimization', 'brand campaigns', 'customer segmentation', 'content strategy'],
    orgs: ['Brightwave Agency', 'Tailspin Software', 'Granite Advisory'],
    queries: ['advertising expert', 'brand promotion'],
  },
  {
    key: 'logistics',
    titles: ['Logistics Manager', 'Supply Chain Analyst', 'Procurement Lead'],
    topics: ['freight forwarding', 'warehousing', 'procurement', 'inventory optimization', 'last-mile delivery'],
    orgs: ['Northbound Freight', 'Granite Advisory', 'Civic Works Bureau'],
    queries: ['shipping and storage operations', 'supply chain'],
  },
  {
    key: 'psychology',
    titles: ['Clinical Psychologist', 'Psychotherapist', 'Counselling Psychologist'],
    topics: ['cognitive behavioural therapy', 'anxiety disorders', 'trauma recovery', 'depression', 'family therapy'],
    orgs: ['Northwind Health', 'Harbor Wellness', 'St. Brigid Hospital'],
    queries: ['mental health therapist', 'psychotherapy for anxiety'],
  },
  {
    key: 'security',
    titles: ['Security Engineer', 'Penetration Tester', 'Security Architect'],
    topics: ['threat detection', 'incident response', 'vulnerability research', 'cryptography', 'red teaming'],
    orgs: ['Sentinel Cyber', 'Contoso Labs', 'Tailspin Software'],
    queries: ['cybersecurity', 'hacker defense'],
  },
  {
    key: 'energy',
    titles: ['Solar Energy Engineer', 'Wind Power Consultant', 'Energy Systems Engineer'],
    topics: ['photovoltaics', 'grid integration', 'battery storage', 'offshore wind', 'energy efficiency retrofits'],
    orgs: ['Sunridge Renewables', 'Civic Works Bureau', 'Granite Advisory'],
    queries: ['renewable energy', 'clean power generation'],
  },
  {
    key: 'veterinary',
    titles: ['Veterinarian', 'Veterinary Surgeon', 'Equine Vet'],
    topics: ['small animal medicine', 'equine surgery', 'livestock health', 'veterinary dentistry', 'zoonotic disease'],
    orgs: ['Greenfield Animal Hospital', 'Harbor Wellness', 'Civic Works Bureau'],
    queries: ['animal doctor', 'pet surgery'],
  },
  {
    key: 'education',
    titles: ['Teacher', 'Curriculum Designer', 'Head of Mathematics'],
    topics: ['learning outcomes', 'classroom assessment', 'curriculum development', 'early literacy', 'student engagement'],
    orgs: ['Riverside Academy', 'Civic Works Bureau', 'Harbor Wellness'],
    queries: ['schoolteacher', 'teaching children to read'],
  },
  {
    key: 'journalism',
    titles: ['Journalist', 'Investigative Reporter', 'News Editor'],
    topics: ['investigative reporting', 'data journalism', 'newsroom management', 'fact checking', 'political coverage'],
    orgs: ['The Daily Ledger', 'Brightwave Agency', 'Civic Works Bureau'],
    queries: ['newspaper writer', 'news media'],
  },
  {
    key: 'nutrition',
    titles: ['Dietitian', 'Nutritionist', 'Sports Nutritionist'],
    topics: ['meal planning', 'sports nutrition', 'renal diets', 'weight management', 'food allergies'],
    orgs: ['Harbor Wellness', 'Northwind Health', 'Greenfield Animal Hospital'],
    queries: ['diet expert', 'healthy eating advice'],
  },
];

const FIRST = (
  'Amara Ben Chloe Dmitri Elena Farid Grace Hiro Ines Jonas Kavya Liam Mei Nadia Omar Priya Quentin Rosa Sven Tariq ' +
  'Uma Victor Wen Ximena Yusuf Zara Aiko Bruno Carmen Diego Esther Felix Gita Hannah Ivan Julia Kofi Lena Marco Nia ' +
  'Olga Pedro Ravi Sofia Tomas Ugo Vera Wanjiru Yara Zoltan'
).split(' ');
const LAST = (
  'Okafor Lindqvist Tanaka Moreau Haddad Kowalski Raman Fischer Costa Novak Mensah Ibarra Petrov Nakamura Dubois ' +
  'Schmidt Andersson Kariuki Rossi Varga Mahlangu Oyelaran Quispe Brennan Hoang Ferreira Castellano Ivanova Nguyen ' +
  'Bergstrom Achterberg Delacroix Ekwueme Fontaine Gallagher Hashemi Iwasaki Jaramillo Kuznetsov Laurent Mbeki Norgaard ' +
  'Ostrowski Pellegrino Rahimi Sorensen Takahashi Ulloa Valdivia Whitaker'
).split(' ');
const CITIES = [
  'Lisbon, Portugal', 'Nairobi, Kenya', 'Toronto, Canada', 'Osaka, Japan', 'Lyon, France', 'Boston, USA', 'Melbourne, Australia',
  'Bogota, Colombia', 'Warsaw, Poland', 'Cape Town, South Africa', 'Hamburg, Germany', 'Seattle, USA', 'Mumbai, India',
  'Dublin, Ireland', 'Santiago, Chile', 'Oslo, Norway', 'Accra, Ghana', 'Austin, USA', 'Seoul, South Korea', 'Edinburgh, UK',
];
const FILLER = [
  'Mentor to early-career professionals.',
  'Frequent conference speaker.',
  'Enjoys hiking and photography.',
  'Volunteers with local community groups.',
  'Previously spent five years abroad.',
  'Holds a doctorate and teaches part-time.',
  'Passionate about diversity in the workplace.',
  'Advises startups on strategy.',
  'Puts heart and soul into every project.',
  'Committed to lifelong learning.',
  'Fluent in three languages.',
  'Author of several peer-reviewed papers.',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function pickSome<T>(random: () => number, items: readonly T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

export function generateCorpus(count = 2200, seed = 20240611): Profile[] {
  const random = mulberry32(seed);
  const usedNames = new Set<string>();
  const profiles: Profile[] = [];
  for (let i = 0; i < count; i++) {
    let name: string;
    do name = `${pick(random, FIRST)} ${pick(random, LAST)}`;
    while (usedNames.has(name) && usedNames.size < FIRST.length * LAST.length);
    usedNames.add(name);
    const spec = pick(random, SPECIALTIES);
    const secondary = random() < 0.3 ? pick(random, SPECIALTIES.filter((s) => s !== spec)) : null;
    const title = pick(random, spec.titles);
    const topics = pickSome(random, spec.topics, 2 + Math.floor(random() * 2));
    const org = random() < 0.8 ? pick(random, spec.orgs) : pick(random, SPECIALTIES.flatMap((s) => s.orgs));
    const location = pick(random, CITIES);
    const years = 3 + Math.floor(random() * 25);
    const headline = random() < 0.5 ? `${title} at ${org}` : `${title} focused on ${topics[0]}`;
    const bio = [
      `${title} with ${years} years of experience in ${topics.join(', ')}.`,
      pick(random, FILLER),
      random() < 0.5 ? pick(random, FILLER) : '',
    ]
      .filter(Boolean)
      .join(' ');
    const enrichment = [
      random() < 0.6 ? `Publications and talks on ${pick(random, spec.topics)}.` : '',
      secondary ? `Also works on ${pickSome(random, secondary.topics, 2).join(' and ')}.` : '',
    ]
      .filter(Boolean)
      .join(' ');
    profiles.push({
      profileId: `p${String(i).padStart(5, '0')}`,
      userId: `u${String(i).padStart(5, '0')}`,
      name,
      headline,
      bio,
      organization: org,
      location,
      enrichmentText: enrichment,
      specialty: spec.key,
      secondary: secondary?.key ?? null,
    });
  }
  return profiles;
}

export function judgedQueries(profiles: readonly Profile[], seed = 7): JudgedQuery[] {
  const random = mulberry32(seed);
  const queries: JudgedQuery[] = [];
  const topicGrades = (key: string) => {
    const grades = new Map<string, number>();
    for (const p of profiles) {
      if (p.specialty === key) grades.set(p.profileId, 2);
      else if (p.secondary === key) grades.set(p.profileId, 1);
    }
    return grades;
  };

  for (const spec of SPECIALTIES) {
    for (const q of spec.queries) queries.push({ query: q, kind: 'topic', relevant: topicGrades(spec.key) });
  }
  // Names: a full name (one person), and a family name (everyone with it).
  for (const p of pickSome(random, profiles, 12)) {
    queries.push({ query: p.name, kind: 'name', relevant: new Map([[p.profileId, 2]]) });
  }
  for (const p of pickSome(random, profiles, 4)) {
    const last = p.name.split(' ')[1]!;
    queries.push({ query: last, kind: 'name', relevant: new Map(profiles.filter((x) => x.name.endsWith(` ${last}`)).map((x) => [x.profileId, 2])) });
  }
  // Organizations and locations, alone and with a topic.
  const orgs = [...new Set(SPECIALTIES.flatMap((s) => s.orgs))];
  for (const org of pickSome(random, orgs, 5)) {
    queries.push({ query: `people at ${org}`, kind: 'organization', relevant: new Map(profiles.filter((p) => p.organization === org).map((p) => [p.profileId, 2])) });
  }
  for (const city of pickSome(random, CITIES, 4)) {
    const place = city.split(',')[0]!;
    queries.push({ query: `experts in ${place}`, kind: 'location', relevant: new Map(profiles.filter((p) => p.location === city).map((p) => [p.profileId, 2])) });
  }
  for (const spec of pickSome(random, SPECIALTIES, 6)) {
    const city = pick(random, CITIES);
    const grades = new Map<string, number>();
    for (const p of profiles) {
      const topical = p.specialty === spec.key;
      const here = p.location === city;
      if (topical && here) grades.set(p.profileId, 2);
      else if (topical) grades.set(p.profileId, 1);
    }
    queries.push({ query: `${spec.queries[0]} in ${city.split(',')[0]}`, kind: 'topic+location', relevant: grades });
  }
  for (const spec of pickSome(random, SPECIALTIES, 4)) {
    const org = spec.orgs[0]!;
    const grades = new Map<string, number>();
    for (const p of profiles) {
      if (p.specialty === spec.key && p.organization === org) grades.set(p.profileId, 2);
      else if (p.specialty === spec.key) grades.set(p.profileId, 1);
    }
    queries.push({ query: `${spec.queries[1]} at ${org}`, kind: 'topic+organization', relevant: grades });
  }
  return queries;
}

/** Writes the profiles into one corpus (community_id; '' the public one), 200 rows a statement. */
export async function insertCorpus(db: Queryable, profiles: readonly Profile[], communityId: string) {
  for (let i = 0; i < profiles.length; i += 200) {
    const batch = profiles.slice(i, i + 200);
    const values: unknown[] = [];
    const rows = batch.map((p, j) => {
      values.push(communityId, p.profileId, p.userId, p.name, p.headline, p.bio, p.organization, p.location, p.enrichmentText);
      const o = j * 9;
      return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7}, $${o + 8}, $${o + 9})`;
    });
    await db.query(
      `INSERT INTO search.documents (community_id, profile_id, user_id, name, headline, bio, organization, location, enrichment_text) VALUES ${rows.join(', ')}`,
      values,
    );
  }
}
