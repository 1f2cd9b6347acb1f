import type { Community } from './rows.js';

// One entry per community: what its members work on, how, and for what. Topics deliberately
// include synonyms ("protein folding" / "structure prediction", "LLMs" / "large language
// models") so the demo shows that search has to cope with different wordings of one idea.
export interface Field {
  community: Community;
  weight: number; // share of the generated profiles
  roles: string[]; // field-specific job titles, used next to the academic ones
  topics: string[];
  methods: string[];
  applications: string[];
  orgs: [name: string, location: string][]; // location is where most of its people live
}

export const FIELDS: Field[] = [
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
export const ALL_LOCATIONS = [...new Set(FIELDS.flatMap((f) => f.orgs.map(([, location]) => location)))];
