/** The dashboard's entry: the session decides between the sign-in page and the signed-in pages. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { isLive, loadSession, type Session, setLive, signOut, whenSignedOut } from './api.ts';
import { Pages } from './pages.tsx';
import { SessionContext } from './session.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { Failure, Loading } from './ui.tsx';
import 'uplot/dist/uPlot.min.css';
import './style.css';

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string>();
  const [live, setLiveState] = useState(isLive());
  const refresh = () => loadSession().then(setSession, (e: unknown) => setError(e instanceof Error ? e.message : 'The session could not be read.'));
  useEffect(() => {
    whenSignedOut(() => setSession(null));
    void refresh();
  }, []);

  if (error) return <Failure message={error} retry={() => location.reload()} />;
  if (session === undefined) return <Loading />;
  if (session === null) return <SignIn onSignedIn={setSession} />;
  const state = {
    session,
    live,
    setLive: (value: boolean) => {
      setLive(value);
      setLiveState(value);
    },
    refresh,
    signOut: async () => {
      await signOut();
      setSession(null);
    },
  };
  return (
    <SessionContext.Provider value={state}>
      <Pages key={`${session.merchant_id}-${live}`} />
    </SessionContext.Provider>
  );
}

render(<App />, document.getElementById('app') ?? document.body);
