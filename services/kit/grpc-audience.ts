// The gRPC API's audience (RFC 8707 resource): the `aud` of an access token meant for the gRPC
// services themselves, beside the REST API's and the MCP server's (public-urls.ts, mcp-resource.ts).
// Service accounts' tokens carry it (identity signs them, the authorization server hands them out);
// identity accepts a token for it only when the gRPC door names it as the resource. One fixed name
// rather than a URL: the gRPC listeners have no single public URL (one per role and replica), and
// the issuer (`iss`) already ties a token to its deployment.
export const GRPC_AUDIENCE = 'urn:expertnet:grpc';
