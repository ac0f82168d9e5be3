import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authenticate, authenticateSession } from '../domain/auth.ts';
import { Unauthorized } from '../model/errors.ts';
import { logger } from '../logger.ts';
import { stateOf } from './types.ts';
import { annotate } from '../tracer.ts';

/**
 * Resolves `Authorization: Bearer <API key | session token>` to the merchant; anything else is 401 Invalid API key.
 * A missing header or another scheme says so (nothing about any credential is revealed); a credential that is not
 * accepted gets no reason.
 */
export const auth = ({ publishable }: { publishable: boolean }): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const merchant = await authenticate(bearerOf(request.event), request.event.headers?.livemode);
    if (merchant.credential === 'publishable' && !publishable)
      throw new Unauthorized('invalid_api_key', 'a publishable key can only create payment methods');
    stateOf(request).merchant = merchant;
    logger.appendKeys({ merchant_id: merchant.id });
    annotate({ merchant: merchant.id });
  },
});

function bearerOf(event: APIGatewayProxyEvent): string {
  const header = event.headers?.authorization;
  if (!header?.trim()) throw new Unauthorized('invalid_api_key', 'no Authorization header; send Authorization: Bearer <API key or session token>');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new Unauthorized('invalid_api_key', 'the Authorization header must be Bearer <API key or session token>');
  return match[1]!;
}

/** `auth: 'session'`: a sign-in session token, whichever merchant it acts for (if any); anything else is 401. */
export const sessionAuth = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const session = await authenticateSession(bearerOf(request.event));
    stateOf(request).session = { tokenHash: session.tokenHash, userId: session.userId, email: session.email, merchantId: session.merchantId };
    if (session.merchantId) logger.appendKeys({ merchant_id: session.merchantId });
  },
});
