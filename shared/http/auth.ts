import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authenticate, authenticateSession, type CsrfProof } from '../domain/auth.ts';
import { SESSION_PREFIX } from '../model/credentials.ts';
import { Unauthorized } from '../model/errors.ts';
import { logger } from '../logger.ts';
import { stateOf } from './types.ts';
import { annotate } from '../tracer.ts';
import { sessionFromCookie } from './cookies.ts';

/**
 * Resolves `Authorization: Bearer <API key | session token>` to the merchant; anything else is 401 Invalid API key.
 * A missing header or another scheme says so (nothing about any credential is revealed); a credential that is not
 * accepted gets no reason. Without an Authorization header, the session cookie (see credentialOf).
 */
export const auth = ({ publishable }: { publishable: boolean }): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const { token, csrf } = credentialOf(request.event);
    const merchant = await authenticate(token, request.event.headers?.livemode, csrf);
    if (merchant.credential === 'publishable' && !publishable)
      throw new Unauthorized('invalid_api_key', 'a publishable key can only create payment methods');
    stateOf(request).merchant = merchant;
    logger.appendKeys({ merchant_id: merchant.id });
    annotate({ merchant: merchant.id });
  },
});

const READS = new Set(['GET', 'HEAD']);

/**
 * The request's credential: the Authorization header's, else the `po_session` cookie's (docs/api.md "Dashboard
 * sessions"), which holds a session token only; a cookie request that is not a read must prove its CSRF token.
 */
function credentialOf(event: APIGatewayProxyEvent): { token: string; csrf?: CsrfProof } {
  const headers = event.headers ?? {};
  if (headers.authorization === undefined) {
    const cookie = sessionFromCookie(headers.cookie);
    if (cookie !== undefined) {
      if (!cookie.startsWith(SESSION_PREFIX))
        throw new Unauthorized('invalid_api_key', 'the session cookie holds a session token only, never an API key');
      return { token: cookie, ...(!READS.has(event.httpMethod.toUpperCase()) && { csrf: { sent: headers['x-csrf-token'] } }) };
    }
  }
  return { token: bearerOf(event) };
}

function bearerOf(event: APIGatewayProxyEvent): string {
  const header = event.headers?.authorization;
  if (!header?.trim()) throw new Unauthorized('invalid_api_key', 'no Authorization header; send Authorization: Bearer <API key or session token>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new Unauthorized('invalid_api_key', 'the Authorization header must be Bearer <API key or session token>');
  return match[1]!;
}

/** `auth: 'session'`: a sign-in session token (Bearer or cookie), whichever merchant it acts for (if any); anything else is 401. */
export const sessionAuth = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const { token, csrf } = credentialOf(request.event);
    const session = await authenticateSession(token, csrf);
    stateOf(request).session = session;
    if (session.merchantId) logger.appendKeys({ merchant_id: session.merchantId });
  },
});
