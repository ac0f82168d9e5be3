import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authenticate } from '../domain/auth.ts';
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
    const header = request.event.headers?.authorization;
    if (!header?.trim()) throw new Unauthorized('invalid_api_key', 'no Authorization header; send Authorization: Bearer <API key or session token>');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new Unauthorized('invalid_api_key', 'the Authorization header must be Bearer <API key or session token>');
    const merchant = await authenticate(match[1], request.event.headers?.livemode);
    if (merchant.credential === 'publishable' && !publishable)
      throw new Unauthorized('invalid_api_key', 'a publishable key can only create payment methods');
    stateOf(request).merchant = merchant;
    logger.appendKeys({ merchant_id: merchant.id });
    annotate({ merchant: merchant.id });
  },
});
