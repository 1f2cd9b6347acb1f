// Which bearer value is an OAuth access token: one shaped like a JWT (three base64url segments
// separated by dots); anything else is an API key. Shared by the edge (gateway/core/credentials.ts)
// and the services' door for internal callers (grpc/direct-callers.ts), so they tell them apart alike.
// Header and payload are never empty; the signature may be (an unsigned `alg: none` token is still
// a token, and identity refuses it as one).
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(value: string): boolean {
  return JWT_SHAPE.test(value);
}
