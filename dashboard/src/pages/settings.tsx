/** Settings of the current mode: the origins allowed to embed the hosted card fields (docs/api.md "Hosted card fields"). */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useCan } from '../session.tsx';
import { Failure, Heading, Loading, Time, useAction, useLoad } from '../ui.tsx';

export function Settings() {
  const can = useCan();
  const loaded = useLoad(() => api.GET('/api/settings'), []);
  const [origins, setOrigins] = useState('');
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => {
    if (loaded.data) setOrigins(loaded.data.checkout_origins.join('\n'));
  }, [loaded.data]);
  if (loaded.error) return <Failure message={loaded.error} retry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const submit = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const list = origins
      .split(/\s+/)
      .map((o) => o.trim())
      .filter(Boolean);
    void action
      .run(() => api.PUT('/api/settings', { body: { checkout_origins: list } }))
      .then((ok) => {
        setSaved(ok);
        if (ok) loaded.reload();
      });
  };
  return (
    <>
      <Heading>Settings</Heading>
      <form class="card" onSubmit={submit}>
        <label for="origins">Checkout origins (one a line)</label>
        <textarea id="origins" rows={4} readOnly={!can('settings:write')} value={origins} onInput={(e) => setOrigins(e.currentTarget.value)} />
        <p class="muted">
          Last changed <Time at={loaded.data.updated_at} />
        </p>
        {action.failure}
        {saved && (
          <p class="notice" role="status">
            Saved.
          </p>
        )}
        {can('settings:write') && (
          <button type="submit" disabled={action.busy}>
            Save
          </button>
        )}
      </form>
    </>
  );
}
