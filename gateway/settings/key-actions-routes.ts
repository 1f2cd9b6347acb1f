// Rolling and renaming one of the user's own keys (identity allows it for their personal keys only;
// another key is not found). A roll is post/redirect/get like a mint: the new secret waits for the
// created page (secret-flash.ts), so a reload there rolls nothing again. A refused form is shown
// again with the reason and what was entered. Every form is CSRF-protected (csrf.ts).
import type { FastifyInstance } from 'fastify';
import { textProblem } from '../../services/kit/request-text.js';
import { asUser, type SettingsContext } from './context.js';
import { formRefusalOf } from './form-refusal.js';
import { page } from './html.js';
import { GRACE_CHOICES, renameForm, rollForm } from './key-actions-view.js';
import { FormError, MAX_KEY_NAME_LENGTH, single, type MintForm } from './mint-form.js';
import { ownKey, ownKeysOf } from './own-keys.js';
import { PageError } from './page-error.js';
import type { SecretFlash } from './secret-flash.js';
import { requireSession } from './session.js';

type KeyParams = { Params: { id: string } };

/** The grace period the roll form sent, in seconds: one of the choices it offers. */
function graceOf(form: MintForm): number {
  const sent = single(form, 'grace_seconds');
  const choice = GRACE_CHOICES.find(([seconds]) => String(seconds) === sent);
  if (!choice) throw new FormError('Choose how long the old secret keeps working.', 'grace_seconds');
  return choice[0];
}

/** The name the rename form sent: well-formed text of at most 100 characters. */
function nameOf(form: MintForm): string {
  const name = single(form, 'name');
  const problem = textProblem(name);
  if (problem) throw new FormError(`The name ${problem}.`, 'name');
  if ([...name].length > MAX_KEY_NAME_LENGTH) throw new FormError(`A name is at most ${MAX_KEY_NAME_LENGTH} characters.`, 'name');
  return name;
}

export function registerKeyActionRoutes(app: FastifyInstance, context: SettingsContext, flash: SecretFlash): void {
  const signedIn = { preHandler: requireSession(context) };
  const protectedForm = { preHandler: [requireSession(context), app.csrfProtection] };

  /** The user's own key, still able to be rolled: active, not expired, not rolled already. */
  async function rollable(request: Parameters<typeof ownKeysOf>[1], keyId: string) {
    const key = ownKey(await ownKeysOf(context, request), keyId);
    const expired = key.expiresAt !== undefined && Date.parse(key.expiresAt) <= Date.now();
    if (key.revokedAt || expired || key.replacedByKeyId) throw new PageError(409, 'Only an active key that was not rolled yet can be rolled.');
    return key;
  }

  app.get<KeyParams>('/keys/:id/roll', signedIn, async (request, reply) => {
    const key = await rollable(request, request.params.id);
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({ title: 'Roll key', user: request.user!, csrf, current: '/keys', body: rollForm(key, csrf) }));
  });

  app.post<KeyParams & { Body: MintForm }>('/keys/:id/roll', protectedForm, async (request, reply) => {
    const sent = request.body ?? {};
    let rolled;
    try {
      rolled = await context.clients.identity.rollKey({ keyId: request.params.id, graceSeconds: graceOf(sent) }, await asUser(context, request));
    } catch (error) {
      const refusal = formRefusalOf(error);
      const key = await rollable(request, request.params.id);
      const csrf = reply.generateCsrf();
      const grace = typeof sent.grace_seconds === 'string' ? sent.grace_seconds : '';
      return reply.code(refusal.status).type('text/html').send(page({
        title: 'Roll key', user: request.user!, csrf, current: '/keys', body: rollForm(key, csrf, { grace, error: refusal.message }),
      }));
    }
    flash.keep(request, reply, rolled.key!.id, rolled.secret);
    return reply.redirect(`/keys/${encodeURIComponent(rolled.key!.id)}/created`, 303);
  });

  app.get<KeyParams>('/keys/:id/rename', signedIn, async (request, reply) => {
    const key = ownKey(await ownKeysOf(context, request), request.params.id);
    const csrf = reply.generateCsrf();
    return reply.type('text/html').send(page({ title: 'Rename key', user: request.user!, csrf, current: '/keys', body: renameForm(key, csrf) }));
  });

  app.post<KeyParams & { Body: MintForm }>('/keys/:id/rename', protectedForm, async (request, reply) => {
    const sent = request.body ?? {};
    try {
      await context.clients.identity.renameKey({ keyId: request.params.id, name: nameOf(sent) }, await asUser(context, request));
    } catch (error) {
      const refusal = formRefusalOf(error);
      const key = ownKey(await ownKeysOf(context, request), request.params.id);
      const csrf = reply.generateCsrf();
      const name = typeof sent.name === 'string' ? sent.name : '';
      return reply.code(refusal.status).type('text/html').send(page({
        title: 'Rename key', user: request.user!, csrf, current: '/keys', body: renameForm(key, csrf, { name, error: refusal.message }),
      }));
    }
    return reply.redirect(`/keys?renamed=${encodeURIComponent(request.params.id)}`, 303);
  });
}
