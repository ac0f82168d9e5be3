import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authenticate } from '../domain/auth.ts';
import { logger } from '../logger.ts';
import { stateOf } from './types.ts';

/** Resolves `Authorization: Bearer <API key | session token>` to the merchant; anything else is 401 Invalid API key. */
export const auth = (): MiddlewareObj<APIGatewayProxyEvent> => ({
  before: async (request) => {
    const header = request.event.headers?.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const merchant = await authenticate(match?.[1]);
    stateOf(request).merchant = merchant;
    logger.appendKeys({ merchant_id: merchant.id });
  },
});
