import type { Profile } from './rows.js';

// Hand-written people beside the generated ones: what searchers in these communities ask for and
// the generator's pools do not cover (genome editing, Nairobi, chemistry with graph neural
// networks, clinicians), plus look-alikes that share one word with such a request and should rank
// below the person who fits (a grants manager who reviews applications, a climate scientist in
// Nairobi, an epidemiologist elsewhere, a statistician of floods). Fixed text, fixed ids after the
// generated ones, no draw from the PRNG: the generated profiles are the same as without them.
// The natural-language search suite (test/search-requests.test.ts) judges requests against them.
export const HAND_WRITTEN: { profile: Profile; communities: string[]; joined_at: string }[] = [
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
