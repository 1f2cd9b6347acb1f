// What the steps find: each step's result shape, and `Found`, the record later steps read and
// the pipeline turns into the stored document. Apart from the steps and from types.ts, so that the
// step contract and the steps stand on it without importing each other.

// orcid step
export interface OrcidEmployment {
  organization: string;
  roleTitle: string | null;
  department: string | null;
  startYear: number | null;
  endYear: number | null;
}

export interface OrcidRecord {
  /** Current positions first, then the most recently started; at most MAX_EMPLOYMENTS (orcid.ts). */
  employments: OrcidEmployment[];
  /** Works as ORCID groups them (one per work, however many sources list it). */
  worksCount: number;
}

// openalex step
export interface OpenAlexInstitution {
  name: string;
  countryCode: string | null;
  ror: string | null;
}

export interface OpenAlexAuthor {
  /** https://openalex.org/A… */
  id: string;
  matchedBy: 'orcid' | 'name';
  displayName: string;
  worksCount: number;
  citedByCount: number;
  hIndex: number | null;
  i10Index: number | null;
  twoYearMeanCitedness: number | null;
  topics: string[];
  institutions: OpenAlexInstitution[];
}

// recent_works step
export interface CoAuthor {
  name: string;
  /** Bare ORCID iD, when OpenAlex knows it. */
  orcid: string | null;
}

export interface RecentWork {
  title: string;
  year: number | null;
  /** Bare DOI ("10.1038/…"). */
  doi: string | null;
  venue: string | null;
  /** Every other author of the work, in author order. */
  coAuthors: CoAuthor[];
}

// collaborators step
export interface Collaborator {
  profileId: string;
  name: string;
  sharedWorks: number;
}

/** What the steps found, each filled in by one step (absent: skipped, or not at this depth). */
export interface Found {
  topics?: string[];
  skills?: string[];
  orcid?: OrcidRecord;
  openalex?: OpenAlexAuthor;
  recentWorks?: RecentWork[];
  collaborators?: Collaborator[];
  summary?: string;
}
