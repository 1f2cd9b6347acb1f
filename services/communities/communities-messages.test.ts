// A profile on the wire (communities-messages.ts): a person's absent values are unset optional
// fields, so null survives from the row to the API and back; the fields keep their numbers, so a
// peer built before they were optional reads and writes the same bytes; member.added events stored
// before still read.
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { Event, Profile } from '../../proto/gen/expertnet/communities/v1/communities_service.js';
import { profileRow, toMember, toProfile, type MemberRow } from './communities-messages.js';
import type { ProfileRow } from './community.repository.js';

const row = (over: Partial<ProfileRow> = {}): ProfileRow => ({
  id: 'p_1', user_id: null, placeholder_user_id: 'u_ph_1', public: false, name: 'Ada', headline: 'Ecologist', bio: null,
  organization: '', location: null, email: 'ada@example.org', linkedin_url: null, orcid: null, avatar_url: null, ...over,
});

const OPTIONAL = ['userId', 'bio', 'organization', 'location', 'linkedinUrl', 'orcid', 'avatarUrl'] as const;

describe('a profile as a message', () => {
  it('leaves absent values unset, never empty, and keeps them unset across the wire', () => {
    const profile = toProfile(row(), 'operator');
    expect(profile).toMatchObject({ id: 'p_1', name: 'Ada', headline: 'Ecologist', email: 'ada@example.org', placeholderUserId: 'u_ph_1' });
    for (const field of OPTIONAL) expect(profile[field]).toBeUndefined();
    const decoded = Profile.decode(Profile.encode(profile).finish());
    expect(decoded).toEqual(profile);
    for (const field of OPTIONAL) expect(decoded[field]).toBeUndefined();
  });

  it('gives an end user’s request neither the email nor the placeholder account', () => {
    const profile = toProfile(row(), 'caller');
    expect(profile.email).toBeUndefined();
    expect(profile.placeholderUserId).toBeUndefined();
    expect(Profile.decode(Profile.encode(profile).finish())).toEqual(profile);
  });

  it('is read by field number as before: a peer without optional fields writes and reads the same bytes', () => {
    // What a peer built before the fields were optional writes for an unclaimed, public person with
    // a headline only: no user_id, no empty strings at all.
    const old = new BinaryWriter().uint32(10).string('p_1').uint32(24).bool(true).uint32(34).string('Ada').uint32(42).string('Ecologist').finish();
    const read = Profile.decode(old);
    expect(read).toMatchObject({ id: 'p_1', public: true, name: 'Ada', headline: 'Ecologist' });
    for (const field of [...OPTIONAL, 'email', 'placeholderUserId'] as const) expect(read[field]).toBeUndefined();
    // And what this side writes is the same bytes such a peer would have written.
    const ours = toProfile(row({ public: true, placeholder_user_id: null, email: '' }), 'operator');
    expect(Buffer.from(Profile.encode(ours).finish())).toEqual(Buffer.from(old));
  });

  it('writes an unset (or empty) field as null, and a row read back as the message is the row', () => {
    expect(profileRow(Profile.fromPartial({ id: 'p_2', name: 'Bo', headline: '', orcid: '0000-0002-1825-0097' }))).toEqual({
      id: 'p_2', user_id: null, placeholder_user_id: null, public: false, name: 'Bo', headline: null, bio: null, organization: null,
      location: null, email: null, linkedin_url: null, orcid: '0000-0002-1825-0097', avatar_url: null,
    });
    const full = row({ user_id: 'u_1', bio: 'Soil.', organization: 'Lab', location: 'Oslo', linkedin_url: 'https://www.linkedin.com/in/ada',
      orcid: '0000-0002-1825-0097', avatar_url: 'https://example.org/a.png' });
    expect(profileRow(Profile.decode(Profile.encode(toProfile(full, 'operator')).finish()))).toEqual(full);
  });

  it('reads a member.added event stored before the fields were optional (absent values left out) with them unset', () => {
    const member = toMember({ ...row(), role: 'member', joined_at: new Date('2026-11-28T12:00:00Z'), supplied: null } as MemberRow, 'c_1', 'caller');
    const event = { id: 'evt_1', type: 'member.added', createdAt: '2026-11-28T12:00:00.000Z', member };
    // Stored as the event's JSON; before, an absent value was '' and left out of that JSON too.
    const stored: unknown = JSON.parse(JSON.stringify(Event.toJSON(event)));
    expect((stored as { member: { profile: object } }).member.profile).toEqual({ id: 'p_1', name: 'Ada', headline: 'Ecologist' });
    expect(Event.fromJSON(stored).member?.profile).toEqual(member.profile);
  });
});
