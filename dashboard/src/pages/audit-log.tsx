/** Audit log: who changed what, newest first, filtered by action or object (docs/api.md "Audit log"). */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Heading, States, Table, Time, usePages } from '../ui.tsx';

export function AuditLog() {
  const [filter, setFilter] = useState({ action: '', object_id: '' });
  const [draft, setDraft] = useState(filter);
  const entries = usePages(
    (cursor) =>
      api.GET('/api/audit_log', {
        query: {
          limit: 50,
          ...cursor,
          ...(filter.action ? { action: filter.action } : {}),
          ...(filter.object_id ? { object_id: filter.object_id } : {}),
        },
      }),
    [filter],
  );
  return (
    <>
      <Heading>Audit log</Heading>
      <form
        class="card row"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter({ action: draft.action.trim(), object_id: draft.object_id.trim() });
        }}
      >
        <label>
          Action
          <input placeholder="payment.refund" value={draft.action} onInput={(e) => setDraft({ ...draft, action: e.currentTarget.value })} />
        </label>
        <label>
          Object id
          <input value={draft.object_id} onInput={(e) => setDraft({ ...draft, object_id: e.currentTarget.value })} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <States loaded={entries} empty={entries.rows.length === 0} emptyText="Nothing recorded.">
        <Table caption="Audit log" head={['When', 'Who', 'Action', 'Object', 'Changes', 'From']}>
          {entries.rows.map((e) => (
            <tr key={e.id}>
              <td>
                <Time at={e.created_at} />
              </td>
              <td>{e.actor.email ?? (e.actor.key_last4 ? `key …${e.actor.key_last4}` : e.actor.id)}</td>
              <td>{e.action}</td>
              <td>
                <code>{e.object_id ?? '—'}</code>
              </td>
              <td class="wrap">
                {Object.entries(e.changes)
                  .map(([k, c]) => `${k}: ${JSON.stringify(c.from ?? null)} → ${JSON.stringify(c.to)}`)
                  .join('; ') || '—'}
              </td>
              <td>{e.ip}</td>
            </tr>
          ))}
        </Table>
        {entries.pager}
      </States>
    </>
  );
}
