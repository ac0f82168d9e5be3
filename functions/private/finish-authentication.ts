import { finishReturnedAuthentication } from '../../shared/domain/three-d-secure.ts';
import { invoked } from '../../shared/invoke.ts';
import { FinishAuthenticationInput } from '../../shared/schemas/private.ts';

/** Finishes 3-D Secure at the provider for the public return page (hosted/3ds-return), the only caller: no route reaches it. */
export const handler = invoked(FinishAuthenticationInput, finishReturnedAuthentication);
