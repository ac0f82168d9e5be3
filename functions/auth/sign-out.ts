import { http } from '../../shared/http/index.ts';
import { SignedOut } from '../../shared/schemas/responses/team.ts';
import { signOut } from '../../shared/domain/team.ts';

export const handler = http({ auth: 'session', response: SignedOut }, async ({ session }) => signOut(session));
