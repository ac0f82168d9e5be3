/**
 * Developers: the merchant's API keys, both modes (docs/api.md "API keys"). A new key is shown once, right after it is
 * made; the list shows only its prefix and last 4. Restricted keys name their groups (never team, audit log, keys).
 */
import { useState } from 'preact/hooks';
import { GRANTABLE, type Group, type Level } from '../../../shared/model/permissions.ts';
import { api, type components } from '../api.ts';
import { label } from '../format.ts';
import { useCan, useSession } from '../session.tsx';
import { About, ConfirmButton, Dialog, Heading, States, Status, Table, Time, useAction, usePages } from '../ui.tsx';

type NewKey = components['schemas']['NewApiKey'];

export function Developers() {
  const can = useCan();
  const { live } = useSession();
  const writable = can('api_keys:write');
  const list = usePages((cursor) => api.GET('/api/api-keys', { query: { limit: 25, ...cursor } }), []);
  const [made, setMade] = useState<NewKey>();
  const changed = (key?: NewKey) => {
    setMade(key);
    list.reload();
  };
  return (
    <>
      <Heading>Developers</Heading>
      <h2>API keys</h2>
      {writable && <CreateKey made={changed} />}
      {made?.key && (
        <div class="notice" role="status">
          <p>
            Your new key <strong>{made.name}</strong>. Copy it now: it is not shown again.
          </p>
          <code class="secret">{made.key}</code>
        </div>
      )}
      <States loaded={list} empty={list.rows.length === 0} emptyText="No API keys yet.">
        <Table caption="API keys" head={['Name', 'Key', 'Type', 'Mode', 'Status', 'Permissions', 'Last used', 'Created', '']}>
          {list.rows.map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>
                  {k.prefix}…{k.last4}
                </code>
              </td>
              <td>{label(k.type)}</td>
              <td>{label(k.mode)}</td>
              <td>
                <Status value={k.status} />
              </td>
              <td>
                {k.permissions
                  ? Object.entries(k.permissions)
                      .map(([g, l]) => `${g}:${l}`)
                      .join(', ')
                  : 'All'}
              </td>
              <td>
                <Time at={k.last_used} />
              </td>
              <td>
                <Time at={k.created_at} />
              </td>
              <td class="row-actions">
                {writable && k.status === 'active' && <RollKey id={k.id} name={k.name} made={changed} />}
                {writable && k.status !== 'revoked' && (
                  <ConfirmButton
                    label="Revoke"
                    about={k.name}
                    question={`Revoke the key ${k.name}?`}
                    confirm="Revoke"
                    onConfirm={() => api.PUT('/api/api-keys/{id}/revoke', { params: { id: k.id } })}
                    done={() => changed()}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
      {!live && can('test_clocks:read') && <TestClocks />}
    </>
  );
}

/** Test clocks: simulated time for subscriptions in test mode (docs/api.md "Test clocks"). */
function TestClocks() {
  const list = usePages((cursor) => api.GET('/api/test_clocks', { query: { limit: 25, ...cursor } }), []);
  return (
    <>
      <h2>Test clocks</h2>
      <States loaded={list} empty={list.rows.length === 0} emptyText="No test clocks.">
        <Table caption="Test clocks" head={['Name', 'Time', 'Status', 'Created']}>
          {list.rows.map((c) => (
            <tr key={c.id}>
              <td>{c.name ?? c.id}</td>
              <td>
                <Time at={c.frozen_time} />
              </td>
              <td>
                <Status value={c.status} />
              </td>
              <td>
                <Time at={c.created_at} />
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
    </>
  );
}

function CreateKey(props: { made(key: NewKey): void }) {
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'test' | 'live'>('test');
  const [type, setType] = useState<'secret' | 'restricted' | 'publishable'>('secret');
  const [grants, setGrants] = useState<Partial<Record<Group, Level>>>({});
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const permissions = type === 'restricted' ? grants : undefined;
    void action
      .run(async () =>
        props.made(await api.POST('/api/api-keys', { body: { name: name.trim(), mode, type, ...(permissions ? { permissions } : {}) } })),
      )
      .then((ok) => ok && setName(''));
  };
  return (
    <form class="card" onSubmit={submit}>
      <h3>Create a key</h3>
      <div class="row">
        <label>
          Name
          <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Mode
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value as 'test' | 'live')}>
            <option value="test">Test</option>
            <option value="live">Live</option>
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
            <option value="secret">Secret</option>
            <option value="restricted">Restricted</option>
            <option value="publishable">Publishable</option>
          </select>
        </label>
      </div>
      {type === 'restricted' && (
        <fieldset class="grants">
          <legend>Permissions</legend>
          {GRANTABLE.map((group) => (
            <label key={group}>
              {label(group)}
              <select
                value={grants[group] ?? ''}
                onChange={(e) => {
                  const level = e.currentTarget.value as Level | '';
                  const next = { ...grants };
                  if (level) next[group] = level;
                  else delete next[group];
                  setGrants(next);
                }}
              >
                <option value="">None</option>
                <option value="read">Read</option>
                <option value="write">Write</option>
              </select>
            </label>
          ))}
        </fieldset>
      )}
      {action.failure}
      <button type="submit" disabled={action.busy}>
        Create key
      </button>
    </form>
  );
}

function RollKey(props: { id: string; name: string; made(key: NewKey): void }) {
  const [open, setOpen] = useState(false);
  const [hours, setHours] = useState('24');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(async () => props.made(await api.POST('/api/api-keys/{id}/roll', { params: { id: props.id }, body: { expires_in_hours: Number(hours) } })))
      .then((ok) => ok && setOpen(false));
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        <About text="Roll" about={props.name} />
      </button>
      <Dialog title={`Roll the key ${props.name}`} open={open} onClose={() => setOpen(false)}>
        <form onSubmit={submit}>
          <label for={`roll-${props.id}`}>Hours the old key keeps working (0 to 168)</label>
          <input id={`roll-${props.id}`} type="number" min={0} max={168} required value={hours} onInput={(e) => setHours(e.currentTarget.value)} />
          {action.failure}
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Roll
            </button>
            <button type="button" class="secondary" onClick={() => setOpen(false)}>
              Cancel
            </button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
