// The seed rows the demo data set is made of, named once for the files that build them.
import type { SeedInput } from '../seed-schema.js';

export type Profile = NonNullable<SeedInput['profiles']>[number];
export type Membership = NonNullable<SeedInput['memberships']>[number];
export type Community = NonNullable<SeedInput['communities']>[number];
