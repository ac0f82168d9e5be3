/**
 * Team: the members and their roles, the invitations (docs/api.md "Team"). Only an owner is offered the owner role;
 * the API keeps the last owner anyway.
 */
import { useState } from 'preact/hooks';
import { ROLES, type Role } from '../../../shared/model/permissions.ts';
import { api } from '../api.ts';
import { label } from '../format.ts';
import { useCan, useSession } from '../session.tsx';
import { ConfirmButton, Heading, States, Status, Table, Time, useAction, usePages } from '../ui.tsx';

export function Team() {
  const can = useCan();
  const { session } = useSession();
  const writable = can('team:write');
  const roles = ROLES.filter((r) => r !== 'owner' || session.role === 'owner');
  const members = usePages((cursor) => api.GET('/api/team/members', { query: { limit: 50, ...cursor } }), []);
  const invitations = usePages((cursor) => api.GET('/api/team/invitations', { query: { limit: 50, ...cursor } }), []);
  const change = useAction();
  return (
    <>
      <Heading>Team</Heading>
      {writable && <Invite roles={roles} invited={invitations.reload} />}
      <h2>Members</h2>
      {change.failure}
      <States loaded={members} empty={members.rows.length === 0} emptyText="No members.">
        <Table caption="Members" head={['E-mail', 'Role', 'Since', '']}>
          {members.rows.map((m) => {
            const editable = writable && m.id !== session.user_id && (m.role !== 'owner' || session.role === 'owner');
            return (
              <tr key={m.id}>
                <td>{m.email}</td>
                <td>
                  {editable ? (
                    <select
                      aria-label={`Role of ${m.email}`}
                      value={m.role}
                      disabled={change.busy}
                      onChange={(e) =>
                        void change
                          .run(() =>
                            api.PUT('/api/team/members/{user_id}', { params: { user_id: m.id }, body: { role: e.currentTarget.value as Role } }),
                          )
                          .then(members.reload)
                      }
                    >
                      {roles.map((r) => (
                        <option key={r} value={r}>
                          {label(r)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    label(m.role)
                  )}
                </td>
                <td>
                  <Time at={m.created_at} />
                </td>
                <td>
                  {editable && (
                    <ConfirmButton
                      label="Remove"
                      about={m.email}
                      question={`Remove ${m.email} from the team?`}
                      confirm="Remove"
                      onConfirm={() => api.DELETE('/api/team/members/{user_id}', { params: { user_id: m.id } })}
                      done={members.reload}
                    />
                  )}
                </td>
              </tr>
            );
          })}
        </Table>
        {members.pager}
      </States>
      <h2>Invitations</h2>
      <States loaded={invitations} empty={invitations.rows.length === 0} emptyText="No invitations.">
        <Table caption="Invitations" head={['E-mail', 'Role', 'Status', 'Expires', '']}>
          {invitations.rows.map((i) => (
            <tr key={i.id}>
              <td>{i.email}</td>
              <td>{label(i.role)}</td>
              <td>
                <Status value={i.status} />
              </td>
              <td>
                <Time at={i.expires_at} />
              </td>
              <td>
                {writable && i.status === 'pending' && (i.role !== 'owner' || session.role === 'owner') && (
                  <ConfirmButton
                    label="Revoke"
                    about={`the invitation of ${i.email}`}
                    question={`Revoke the invitation of ${i.email}?`}
                    confirm="Revoke"
                    onConfirm={() => api.DELETE('/api/team/invitations/{id}', { params: { id: i.id } })}
                    done={invitations.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {invitations.pager}
      </States>
    </>
  );
}

function Invite(props: { roles: readonly Role[]; invited(): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('view_only');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action
      .run(() => api.POST('/api/team/invitations', { body: { email: email.trim(), role } }))
      .then((ok) => {
        if (!ok) return;
        setEmail('');
        props.invited();
      });
  };
  return (
    <form class="card" onSubmit={submit}>
      <h2>Invite someone</h2>
      <div class="row">
        <label>
          E-mail
          <input type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {props.roles.map((r) => (
              <option key={r} value={r}>
                {label(r)}
              </option>
            ))}
          </select>
        </div>
      </div>
      {action.failure}
      <button type="submit" disabled={action.busy}>
        Invite
      </button>
    </form>
  );
}
