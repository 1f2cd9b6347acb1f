// What `npm start` prints when it minted no sign-in link and no key (every start after the first):
// the admin CLI commands that make a new one-time sign-in link and a new key, since the first
// start's secret and link are shown only once. The CLI finds this process through DATA_DIR.
import type { Config } from '../../services/kit/config.js';
import { callAs, type ServiceClients } from '../../services/kit/grpc/client.js';
import type { TokenSigner } from '../../services/kit/grpc/caller-token.js';
import { SCOPES } from '../../services/kit/scopes.js';

/** The demo data set's user (deploy/admin/demo-data.ts). */
const DEMO_USER_ID = 'u_demo';
const DEFAULT_DATA_DIR = './.data';

/**
 * The lines to print: the commands for the demo user when it exists, else with USER_ID and the
 * command that lists the users. A data folder other than the default is named on each command.
 */
export async function wayBackIn(config: Config, deps: { clients: ServiceClients; signer: TokenSigner }): Promise<string[]> {
  const admin = `${config.DATA_DIR === DEFAULT_DATA_DIR ? '' : `DATA_DIR=${shellWord(config.DATA_DIR)} `}npm run admin --`;
  const demo = await userExists(config, deps, DEMO_USER_ID);
  const user = demo ? DEMO_USER_ID : 'USER_ID';
  return [
    `Sign in:   ${admin} users sign-in-link --user ${user}   (a one-time link to the settings)`,
    `New key:   ${admin} keys mint --user ${user} --scopes ${SCOPES.join(',')}   (prints its secret once)`,
    ...(demo ? [] : [`Users:     ${admin} users list`]),
  ];
}

/** The path as one shell word, quoted when it holds anything but plain path characters. */
function shellWord(text: string): string {
  return /^[\w./:@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Whether a seed put the user there, asked of identity's seed ledger as the edge: a serving process
 * holds no operator key (caller-token.ts), and the ledger's record ids are all it needs.
 */
async function userExists(config: Config, deps: { clients: ServiceClients; signer: TokenSigner }, userId: string): Promise<boolean> {
  try {
    const options = await callAs(deps.signer, { kind: 'edge' }, undefined, config.GRPC_DEADLINE_MS);
    const state = await deps.clients.identity.getSeedState({}, options);
    return state.records.some((r) => r.kind === 'user' && r.recordId === userId);
  } catch {
    // No answer: the start-up still succeeds and names no user.
    return false;
  }
}
