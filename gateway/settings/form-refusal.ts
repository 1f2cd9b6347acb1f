// Why a settings form was refused, to show beside the form (kept as it was sent) instead of an
// error page that drops the input: the form's own check, or a service's refusal of what was sent.
import { fromRemote } from '../core/api-error.js';
import { FormError } from './mint-form.js';

/** The reason, the field it is about (when known) and the page's status. */
export interface FormRefusal {
  message: string;
  field?: string;
  status: number;
}

/**
 * The refusal of a form: its own check (400), or a service's 4xx answer to what was sent (an
 * allowlist beyond the user's reach, a name identity will not keep). Anything else (a session
 * that ended, a service that is down) is not the person's to fix here: it is thrown on to the
 * error page.
 */
export function formRefusalOf(error: unknown): FormRefusal {
  if (error instanceof FormError) return { message: error.message, status: 400, ...(error.field && { field: error.field }) };
  const api = fromRemote(error);
  if (api.status >= 400 && api.status < 500 && api.status !== 401) return { message: api.message, status: api.status };
  throw error;
}
