/** The signed-in member, shared with every page: who they are, for which merchant, in which mode, what they may do. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { allows, type Permission, ROLE_GRANTS } from '../../shared/model/permissions.ts';
import type { Session } from './api.ts';

export interface SessionState {
  session: Session;
  live: boolean;
  setLive(live: boolean): void;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside a signed-in page');
  return state;
}

/** Whether the member's role allows `permission`: the dashboard offers only what the API would accept. */
export function useCan(): (permission: Permission) => boolean {
  const { session } = useSession();
  return (permission) => session.role !== null && allows(ROLE_GRANTS[session.role], permission);
}
