// The display name recorded with an attestation or a consent decision (who acted, as a fellow
// manager reads it later): the settings web app sends its signed-in user's name. It is kept as it
// was when they acted; its text already passed the gRPC door's storable-text rule
// (services/kit/grpc/unstorable-text.ts), and it is bounded as identity bounds a user's name.
import { domainError } from '../kit/grpc/errors.js';

const MAX_CHARACTERS = 300;

/** The name to record, or invalid_request when it is longer than a user's name may be. */
export function actorNameOf(name: string): string {
  if ([...name].length > MAX_CHARACTERS) throw domainError('invalid_request', `actor_name is at most ${MAX_CHARACTERS} characters`);
  return name;
}
