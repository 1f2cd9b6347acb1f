// The minting rules: keys are always personal, scopes come from the six of the spec, the
// allowlist only narrows (it is intersected with live reach at use), and the rate tier is decided
// now, from the owner's privilege, and stored on the key — a later plan change does not move it.
import { isScope, READ_PRESET, type Scope } from '../kit/scopes.js';
import { domainError } from '../kit/grpc/errors.js';

export const DEFAULT_REQUESTED_RATE = 60;
export const MAX_REQUESTED_RATE = 6000;

export interface PrivilegeFacts {
  plan: 'free' | 'trial' | 'paid';
  managesCommunity: boolean;
  managedOrganizationOwnsCommunity: boolean;
}

/**
 * Privileged (standard tier) when any holds at mint: the owner is an organization (legacy keys
 * only), an active paid plan (a trial does not count), the user owns or administers a community,
 * or the user manages an organization that owns one.
 */
export function rateTierFor(owner: 'organization' | PrivilegeFacts): 'restricted' | 'standard' {
  if (owner === 'organization') return 'standard';
  const privileged = owner.plan === 'paid' || owner.managesCommunity || owner.managedOrganizationOwnsCommunity;
  return privileged ? 'standard' : 'restricted';
}

export function validScopes(requested: readonly string[]): Scope[] {
  const unknown = requested.filter((s) => !isScope(s));
  if (unknown.length > 0) throw domainError('invalid_request', `unknown scope(s): ${unknown.join(', ')}`);
  const scopes = [...new Set(requested)] as Scope[];
  if (scopes.length === 0) throw domainError('invalid_request', 'at least one scope is required');
  return scopes;
}

/** Scopes of a mint request: the preset's (only "read" exists) plus the ones chosen explicitly. */
export function scopesWithPreset(preset: string, explicit: readonly string[]): string[] {
  if (preset === '') return [...explicit];
  if (preset !== 'read') throw domainError('invalid_request', `unknown preset ${preset}: the only preset is read`);
  return [...READ_PRESET, ...explicit];
}

export function validRequestedRate(rate: number): number {
  if (rate === 0) return DEFAULT_REQUESTED_RATE;
  if (!Number.isInteger(rate) || rate < 1 || rate > MAX_REQUESTED_RATE) {
    throw domainError('invalid_request', `requested_rate must be 1 to ${MAX_REQUESTED_RATE} per minute`);
  }
  return rate;
}

export function validAllowlist(ids: readonly string[] | undefined): string[] | null {
  if (ids === undefined) return null;
  const bad = ids.filter((id) => id.trim() === '' || id.length > 200);
  if (bad.length > 0) throw domainError('invalid_request', 'allowlist entries must be community ids');
  return [...new Set(ids)];
}

export const MAX_KEY_NAME_LENGTH = 100;

/** A key's name: optional, trimmed, at most 100 characters, no control characters. */
export function validKeyName(name: string): string {
  const trimmed = name.trim();
  if ([...trimmed].length > MAX_KEY_NAME_LENGTH) {
    throw domainError('invalid_request', `name is at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw domainError('invalid_request', 'name may not contain control characters');
  return trimmed;
}

/** The longest a key may be minted to live (the settings app offers 7, 30 or 90 days). */
export const MAX_KEY_LIFETIME_SECONDS = 365 * 24 * 3600;
/** The longest an old secret may keep working after a roll (the settings app offers up to 7 days). */
export const MAX_ROLL_GRACE_SECONDS = 7 * 24 * 3600;

/** When a key minted now for `seconds` expires; null for 0 (never). */
export function expiryAfter(seconds: number, now = new Date()): Date | null {
  if (seconds === 0) return null;
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_KEY_LIFETIME_SECONDS) {
    throw domainError('invalid_request', `expires_in_seconds must be 0 (never) to ${MAX_KEY_LIFETIME_SECONDS} (365 days)`);
  }
  return new Date(now.getTime() + seconds * 1000);
}

/** A roll's grace period, checked: 0 (the old key is revoked at once) to 7 days. */
export function validGrace(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > MAX_ROLL_GRACE_SECONDS) {
    throw domainError('invalid_request', `grace_seconds must be 0 to ${MAX_ROLL_GRACE_SECONDS} (7 days)`);
  }
  return seconds;
}
