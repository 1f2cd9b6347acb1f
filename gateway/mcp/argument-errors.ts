// A tool's arguments are validated as the endpoint's request parts (tool-call.ts), whose refusals
// name REST's part and field: `body.scope: …`, `path.id: …`, `query.limit: …`. A model never saw
// those parts; it passed arguments. The same refusal, with the same code and reason, names the
// argument instead: `scope: …`, `community_id: …` (every tool calls the path's `id` community_id,
// tools/arguments.ts), `limit: …`; a refusal of the arguments as a whole (`body: Unrecognized key …`)
// names `arguments`.
import { ApiError } from '../core/api-error.js';

/** REST's name of a field (`body.members.0.email`) as the tool's argument (`members.0.email`). */
export function argumentName(restName: string): string {
  if (restName === 'path.id') return 'community_id';
  if (restName === 'body' || restName === 'query' || restName === 'path') return 'arguments';
  return restName.replace(/^(?:body|query|path)\./, '');
}

/** A refusal's message (problems joined by `; `, each `<field>: <reason>`) in the tool's names. */
export function inArgumentNames(message: string): string {
  return message
    .split('; ')
    .map((problem) => problem.replace(/^((?:body|query|path)(?:\.[^:\s]*)?): /, (_all, name: string) => `${argumentName(name)}: `))
    .join('; ');
}

/** Runs the request validation; its refusal comes back in the tool's argument names. */
export function inToolArguments<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'invalid_request') {
      throw new ApiError(error.status, error.code, inArgumentNames(error.message), error.extras, error.headers);
    }
    throw error;
  }
}
