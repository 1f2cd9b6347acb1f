// Keys found by the display prefix people see (`svc_test_t5LAD6`), for the operator: the admin CLI
// revokes a key named that way. Any starting part of a prefix is accepted, so a short one may match
// several keys; the caller decides what two matches mean.
import { domainError } from '../kit/grpc/errors.js';
import { clampPageSize, pageOf } from '../kit/paging.js';
import type { IdentityContext } from './identity-context.js';

/** `svc_live_` or `svc_test_`, then up to the display prefix's six characters. */
const PREFIX_PATTERN = /^svc_(live|test)_[0-9A-Za-z]{1,6}$/;

export async function listKeysByPrefix(context: IdentityContext, request: { prefix: string; pageSize: number; pageToken: string }) {
  if (!PREFIX_PATTERN.test(request.prefix)) {
    throw domainError('invalid_request', 'prefix must be svc_live_ or svc_test_ and 1 to 6 more letters or digits, e.g. svc_test_t5LAD6');
  }
  const limit = clampPageSize(request.pageSize);
  return pageOf(await context.keys.listByPrefix(request.prefix, limit + 1, request.pageToken), limit, (k) => k.id);
}
