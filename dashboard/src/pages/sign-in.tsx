/** Sign-in with a one-time code sent by e-mail; a member of several merchants then picks the one to work in. */
import { useState } from 'preact/hooks';
import { type Session, signIn, switchMerchant } from '../api.ts';
import { useAction } from '../ui.tsx';

export function SignIn(props: { onSignedIn(session: Session): void }) {
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [requestId, setRequestId] = useState<string>();
  const [chooseFrom, setChooseFrom] = useState<Session>();
  const action = useAction();

  const sendCode = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setRequestId((await signIn.requestCode(email.trim())).request_id);
    });
  };
  const verify = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const session = await signIn.verify(requestId!, code.trim());
      if (session.memberships.length > 1) setChooseFrom({ ...session, email: email.trim() });
      else props.onSignedIn({ ...session, email: email.trim() });
    });
  };
  const choose = (merchantId: string) =>
    void action.run(async () => {
      const session = merchantId === chooseFrom!.merchant_id ? chooseFrom! : await switchMerchant(merchantId);
      props.onSignedIn({ ...session, email: chooseFrom!.email });
    });

  return (
    <main class="sign-in">
      <h1>Sign in to the dashboard</h1>
      {chooseFrom ? (
        <section aria-labelledby="choose">
          <h2 id="choose">Choose a business</h2>
          <ul class="choices">
            {chooseFrom.memberships.map((m) => (
              <li key={m.merchant_id}>
                <button type="button" disabled={action.busy} onClick={() => choose(m.merchant_id)}>
                  {m.business_name} <span class="muted">({m.role.replace('_', ' ')})</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <>
          <form onSubmit={sendCode}>
            <label for="email">Email</label>
            <input id="email" type="email" autoComplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            <button type="submit" disabled={action.busy}>
              Send code
            </button>
          </form>
          {requestId && (
            <form onSubmit={verify}>
              <p role="status">We sent a 6-digit code to {email}. It is valid for 10 minutes.</p>
              <label for="code">Code</label>
              <input
                id="code"
                inputMode="numeric"
                autoComplete="one-time-code"
                pattern="[0-9]{6}"
                required
                value={code}
                onInput={(e) => setCode(e.currentTarget.value)}
              />
              <button type="submit" disabled={action.busy}>
                Sign in
              </button>
            </form>
          )}
        </>
      )}
      {action.failure}
    </main>
  );
}
