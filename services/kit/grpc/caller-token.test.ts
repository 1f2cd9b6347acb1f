// Caller tokens as the verifier judges them: every principal kind survives a round trip, and a token
// that was forged, edited, expired, meant for someone else or naming no principal is refused.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { Caller } from '../../../proto/gen/expertnet/common/v1/common.js';
import { ada, callerAda, operator, service } from '../../../test/helpers/grpc-principals.js';
import { generateSecrets } from '../secrets.js';
import { TokenSigner, TokenVerifier } from './caller-token.js';

/** Re-encodes one JWT segment after editing its JSON. */
function editSegment(segment: string, edit: (json: Record<string, unknown>) => void): string {
  const json = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
  edit(json);
  return Buffer.from(JSON.stringify(json)).toString('base64url');
}


describe('caller tokens', () => {
  const secrets = generateSecrets();
  const signer = new TokenSigner(secrets);
  const verifier = new TokenVerifier(secrets);
  const key = createPrivateKey(secrets.callerTokenPrivateKey);

  it('round-trips a caller principal exactly', async () => {
    expect(await verifier.verify(await signer.sign(callerAda))).toEqual(callerAda);
  });

  it('keeps the difference between no allowlist and an empty allowlist', async () => {
    const open = Caller.fromPartial({ ...ada, allowlist: undefined });
    const closed = Caller.fromPartial({ ...ada, allowlist: { communityIds: [] } });
    expect(await verifier.verify(await signer.sign({ kind: 'caller', caller: open }))).toEqual({ kind: 'caller', caller: open });
    const back = await verifier.verify(await signer.sign({ kind: 'caller', caller: closed }));
    expect(back).toEqual({ kind: 'caller', caller: closed });
    expect(back.kind === 'caller' && back.caller.allowlist).toEqual({ communityIds: [] });
  });

  it('round-trips the other principal kinds', async () => {
    for (const p of [operator, { kind: 'edge' } as const, { kind: 'user', userId: 'u_ada' } as const]) {
      expect(await verifier.verify(await signer.sign(p))).toEqual(p);
    }
  });

  it('no token names a service (its client certificate does): none is signed, and one signed with the edge key is refused', async () => {
    await expect(signer.sign(service)).rejects.toThrow(/client certificate/);
    await expect(verifier.verify(await signWith(key, 'expertnet-edge', { pk: 'service', svc: 'billing' }))).rejects.toThrow(/no known principal/);
  });

  it('refuses a token whose header says alg none', async () => {
    const [header, payload] = (await signer.sign(operator)).split('.') as [string, string, string];
    const none = editSegment(header, (h) => {
      h.alg = 'none';
    });
    await expect(verifier.verify(`${none}.${payload}.`)).rejects.toThrow();
  });

  it('refuses a token whose payload was edited after signing', async () => {
    const [header, payload, signature] = (await signer.sign(callerAda)).split('.') as [string, string, string];
    const promoted = editSegment(payload, (p) => {
      p.pk = 'operator';
      p.actor = 'mallory';
    });
    await expect(verifier.verify(`${header}.${promoted}.${signature}`)).rejects.toThrow();
    const widened = editSegment(payload, (p) => {
      (p.caller as { scopes: string[] }).scopes.push('admin');
    });
    await expect(verifier.verify(`${header}.${widened}.${signature}`)).rejects.toThrow();
  });

  it('refuses a token signed by another key pair', async () => {
    const stranger = new TokenSigner(generateSecrets());
    await expect(verifier.verify(await stranger.sign(operator))).rejects.toThrow();
  });

  it('refuses an expired token, and one meant for another audience, even when signed with our key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ pk: 'operator', actor: 'x' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('expertnet-edge')
      .setAudience('expertnet-internal')
      .setIssuedAt(now - 600)
      .setExpirationTime(now - 300)
      .sign(key);
    await expect(verifier.verify(expired)).rejects.toThrow();
    const elsewhere = await new SignJWT({ pk: 'operator', actor: 'x' })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('expertnet-edge')
      .setAudience('somewhere-else')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    await expect(verifier.verify(elsewhere)).rejects.toThrow();
  });

  const signWith = (signingKey: KeyObject, issuer: string, claims: Record<string, unknown>) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer(issuer)
      .setAudience('expertnet-internal')
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(signingKey);
  };
  const operatorKey = createPrivateKey(secrets.operatorTokenPrivateKey);

  it('refuses a well-signed token that names no known principal', async () => {
    await expect(verifier.verify(await signWith(key, 'expertnet-edge', { pk: 'root' }))).rejects.toThrow(/no known principal/);
    await expect(verifier.verify(await signWith(operatorKey, 'expertnet-operator', { pk: 'operator' }))).rejects.toThrow(/no known principal/);
  });

  it("signs an operator principal with the operator's key alone: the edge's key naming the operator is refused", async () => {
    const token = await signer.sign(operator);
    expect(decodeJwt(token).iss).toBe('expertnet-operator');
    // Tokens signed with the edge's key (every serving process has it) that claim the operator.
    await expect(verifier.verify(await signWith(key, 'expertnet-edge', { pk: 'operator', actor: 'x' }))).rejects.toThrow();
    await expect(verifier.verify(await signWith(key, 'expertnet-operator', { pk: 'operator', actor: 'x' }))).rejects.toThrow();
    // Signed with the operator's key, it is the operator.
    expect(await verifier.verify(await signWith(operatorKey, 'expertnet-operator', { pk: 'operator', actor: 'x' }))).toEqual({ kind: 'operator', actor: 'x' });
  });

  it("refuses the operator's key naming any other principal", async () => {
    for (const claims of [{ pk: 'edge' }, { pk: 'service', svc: 'billing' }, { pk: 'user', uid: 'u_ada' }, { pk: 'caller', caller: Caller.toJSON(ada) }]) {
      await expect(verifier.verify(await signWith(operatorKey, 'expertnet-operator', claims))).rejects.toThrow();
      await expect(verifier.verify(await signWith(operatorKey, 'expertnet-edge', claims))).rejects.toThrow();
    }
  });

  it("a signer without the operator's key signs no operator principal, and still signs the others", async () => {
    const edgeOnly = new TokenSigner({ callerTokenPrivateKey: secrets.callerTokenPrivateKey });
    await expect(edgeOnly.sign(operator)).rejects.toThrow(/OPERATOR_TOKEN_PRIVATE_KEY/);
    expect(await verifier.verify(await edgeOnly.sign(callerAda))).toEqual(callerAda);
  });
});
