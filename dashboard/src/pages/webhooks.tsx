/**
 * Webhooks: the endpoints (add, rotate a secret, delete) and the events with their delivery status, each resent on
 * demand to every endpoint that wants it (docs/api.md "Webhooks", "Webhook endpoints").
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useCan } from '../session.tsx';
import { About, ConfirmButton, Heading, States, Status, Table, Time, useAction, usePages } from '../ui.tsx';

export function Webhooks() {
  const can = useCan();
  const writable = can('webhooks:write');
  const endpoints = usePages((cursor) => api.GET('/api/webhooks', { query: { limit: 25, ...cursor } }), []);
  const [secret, setSecret] = useState<{ url: string; secret: string }>();
  const rotate = useAction();
  const showSecret = (url: string, value: string | undefined) => value && setSecret({ url, secret: value });
  return (
    <>
      <Heading>Webhooks</Heading>
      <h2>Endpoints</h2>
      {writable && (
        <AddEndpoint
          added={(url, value) => {
            showSecret(url, value);
            endpoints.reload();
          }}
        />
      )}
      {secret && (
        <div class="notice" role="status">
          <p>The signing secret of {secret.url}. Copy it now: it is not shown again.</p>
          <code class="secret">{secret.secret}</code>
        </div>
      )}
      {rotate.failure}
      <States loaded={endpoints} empty={endpoints.rows.length === 0} emptyText="No endpoints yet.">
        <Table caption="Webhook endpoints" head={['URL', 'Events', 'Status', 'Created', '']}>
          {endpoints.rows.map((w) => (
            <tr key={w.id}>
              <td class="wrap">{w.url}</td>
              <td class="wrap">{w.events.join(', ')}</td>
              <td>
                <Status value={w.status} />
              </td>
              <td>
                <Time at={w.created_at} />
              </td>
              <td class="row-actions">
                {writable && (
                  <button
                    type="button"
                    disabled={rotate.busy}
                    onClick={() =>
                      void rotate.run(async () =>
                        showSecret(w.url, (await api.POST('/api/webhooks/{id}/rotate-secret', { params: { id: w.id } })).secret),
                      )
                    }
                  >
                    <About text="Rotate secret" about={w.url} />
                  </button>
                )}
                {writable && (
                  <ConfirmButton
                    label="Delete"
                    about={w.url}
                    question={`Delete the endpoint ${w.url}?`}
                    confirm="Delete"
                    onConfirm={() => api.DELETE('/api/webhooks/{id}', { params: { id: w.id } })}
                    done={endpoints.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {endpoints.pager}
      </States>
      <Deliveries writable={writable} />
    </>
  );
}

function AddEndpoint(props: { added(url: string, secret: string | undefined): void }) {
  const [url, setUrl] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(async () => {
        const made = await api.POST('/api/webhooks/configure', { body: { url: url.trim(), events: ['*'] } });
        props.added(made.url, made.secret);
      })
      .then((ok) => ok && setUrl(''));
  };
  return (
    <form class="card row" onSubmit={submit}>
      <label>
        Endpoint URL
        <input type="url" required placeholder="https://example.com/webhooks" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={action.busy}>
        Add endpoint
      </button>
      {action.failure}
    </form>
  );
}

function Deliveries(props: { writable: boolean }) {
  const [delivered, setDelivered] = useState<'' | 'true' | 'false'>('');
  const events = usePages(
    (cursor) => api.GET('/api/webhooks/events', { query: { limit: 25, ...cursor, ...(delivered ? { delivered } : {}) } }),
    [delivered],
  );
  const resend = useAction();
  const [resent, setResent] = useState<string>();
  return (
    <>
      <h2>Events and deliveries</h2>
      <label class="inline">
        Delivery
        <select value={delivered} onChange={(e) => setDelivered(e.currentTarget.value as typeof delivered)}>
          <option value="">Any</option>
          <option value="true">Delivered</option>
          <option value="false">Not delivered</option>
        </select>
      </label>
      {resent && (
        <p class="notice" role="status">
          {resent}
        </p>
      )}
      {resend.failure}
      <States loaded={events} empty={events.rows.length === 0} emptyText="No events yet.">
        <Table caption="Events and deliveries" head={['Event', 'Id', 'Delivery', 'Attempts', 'Last answer', 'Created', '']}>
          {events.rows.map((e) => (
            <tr key={e.id}>
              <td>{e.event}</td>
              <td>
                <code>{e.id}</code>
              </td>
              <td>
                <Status value={e.delivered ? 'delivered' : 'not_delivered'} />
              </td>
              <td>{e.attempts}</td>
              <td>{e.last_status_code ?? '—'}</td>
              <td>
                <Time at={e.created_at} />
              </td>
              <td class="row-actions">
                {props.writable && (
                  <button
                    type="button"
                    disabled={resend.busy}
                    onClick={() =>
                      void resend
                        .run(async () => {
                          const r = await api.POST('/api/events/{id}/redeliver', { params: { id: e.id }, body: {} });
                          setResent(`${e.event} ${e.id} resent to ${r.webhook_ids.length} endpoint${r.webhook_ids.length === 1 ? '' : 's'}.`);
                        })
                        .then((ok) => ok && events.reload())
                    }
                  >
                    <About text="Resend" about={e.id} />
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
        {events.pager}
      </States>
    </>
  );
}
