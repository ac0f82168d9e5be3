/**
 * The pages that are mostly a list: customers, subscriptions, invoices (send, mark paid, PDF), disputes (accept),
 * connectors, and reconciliation (settlements, open exceptions, resolve). Each a page at a time from its API.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { label } from '../format.ts';
import { useCan } from '../session.tsx';
import { About, BASE, ConfirmButton, Dialog, Heading, Money, States, Status, Table, Time, useAction, usePages } from '../ui.tsx';

export function Customers() {
  const list = usePages((cursor) => api.GET('/api/customers', { query: { limit: 25, ...cursor } }), []);
  return (
    <>
      <Heading>Customers</Heading>
      <States loaded={list} empty={list.rows.length === 0} emptyText="No customers yet.">
        <Table caption="Customers" head={['E-mail', 'Name', 'Default payment method', 'Created', '']}>
          {list.rows.map((c) => (
            <tr key={c.id}>
              <td>{c.email}</td>
              <td>{c.name ?? '—'}</td>
              <td>
                <code>{c.default_payment_method ?? '—'}</code>
              </td>
              <td>
                <Time at={c.created_at} />
              </td>
              <td class="row-actions">
                <PaymentMethods customerId={c.id} email={c.email} />
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
    </>
  );
}

/** A customer's saved cards, read when asked for (one request per customer opened, never for the whole list). */
function PaymentMethods(props: { customerId: string; email: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        <About text="Payment methods" about={`of ${props.email}`} />
      </button>
      <Dialog title={`Payment methods of ${props.email}`} open={open} onClose={() => setOpen(false)}>
        <CardList customerId={props.customerId} />
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setOpen(false)}>
            Close
          </button>
        </div>
      </Dialog>
    </>
  );
}

function CardList(props: { customerId: string }) {
  const list = usePages(
    (cursor) => api.GET('/api/payment_methods', { query: { customer_id: props.customerId, limit: 25, ...cursor } }),
    [props.customerId],
  );
  return (
    <States loaded={list} empty={list.rows.length === 0} emptyText="No saved cards.">
      <ul class="cards">
        {list.rows.map((m) => (
          <li key={m.id}>
            {label(m.card.brand)} •••• {m.card.last4}, expires {String(m.card.exp_month).padStart(2, '0')}/{m.card.exp_year}
          </li>
        ))}
      </ul>
      {list.pager}
    </States>
  );
}

export function Subscriptions() {
  const can = useCan();
  const [status, setStatus] = useState('');
  const list = usePages(
    (cursor) => api.GET('/api/subscriptions', { query: { limit: 25, ...cursor, ...(status ? { status: status as 'active' } : {}) } }),
    [status],
  );
  const action = useAction();
  const act = (call: () => Promise<unknown>) => void action.run(call).then((ok) => ok && list.reload());
  return (
    <>
      <Heading>Subscriptions</Heading>
      <label class="inline">
        Status
        <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          <option value="">Any</option>
          {['active', 'paused', 'past_due', 'cancelled'].map((s) => (
            <option key={s} value={s}>
              {label(s)}
            </option>
          ))}
        </select>
      </label>
      {action.failure}
      <States loaded={list} empty={list.rows.length === 0} emptyText="No subscriptions.">
        <Table caption="Subscriptions" head={['Plan', 'Amount', 'Every', 'Status', 'Customer', 'Next billing', '']}>
          {list.rows.map((s) => (
            <tr key={s.id}>
              <td>{s.plan}</td>
              <td>
                <Money amount={s.amount} currency={s.currency} />
              </td>
              <td>
                {s.interval_count} {s.interval}
                {s.interval_count === 1 ? '' : 's'}
              </td>
              <td>
                <Status value={s.status} />
              </td>
              <td>
                <code>{s.customer_id}</code>
              </td>
              <td>
                <Time at={s.next_billing} />
              </td>
              <td class="row-actions">
                {can('billing:write') && s.status === 'paused' && (
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() => act(() => api.PUT('/api/subscriptions/{id}/resume', { params: { id: s.id } }))}
                  >
                    <About text="Resume" about={s.id} />
                  </button>
                )}
                {can('billing:write') && (s.status === 'active' || s.status === 'past_due') && (
                  <button
                    type="button"
                    disabled={action.busy}
                    onClick={() => act(() => api.PUT('/api/subscriptions/{id}/pause', { params: { id: s.id } }))}
                  >
                    <About text="Pause" about={s.id} />
                  </button>
                )}
                {can('billing:write') && s.status !== 'cancelled' && (
                  <ConfirmButton
                    label="Cancel"
                    about={s.id}
                    question={`Cancel the subscription to ${s.plan}?`}
                    confirm="Cancel the subscription"
                    keep="Keep it"
                    onConfirm={() => api.PUT('/api/subscriptions/{id}/cancel', { params: { id: s.id } })}
                    done={list.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
    </>
  );
}

export function Invoices() {
  const can = useCan();
  const list = usePages((cursor) => api.GET('/api/invoices', { query: { limit: 25, ...cursor } }), []);
  const action = useAction();
  const act = (call: () => Promise<unknown>) => void action.run(call).then((ok) => ok && list.reload());
  return (
    <>
      <Heading>Invoices</Heading>
      {action.failure}
      <States loaded={list} empty={list.rows.length === 0} emptyText="No invoices.">
        <Table caption="Invoices" head={['Number', 'Total', 'Status', 'Due', 'Customer', '']}>
          {list.rows.map((i) => (
            <tr key={i.id}>
              <td>{i.number}</td>
              <td>
                <Money amount={i.total} currency={i.currency} />
              </td>
              <td>
                <Status value={i.status} />
              </td>
              <td>{i.due_date}</td>
              <td>
                <code>{i.customer_id}</code>
              </td>
              <td class="row-actions">
                {i.pdf_url && (
                  <a href={i.pdf_url} target="_blank" rel="noopener">
                    <About text="PDF" about={i.number} />
                  </a>
                )}
                {can('billing:write') && i.status !== 'paid' && (
                  <>
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() => act(() => api.PUT('/api/invoices/{id}/send', { params: { id: i.id }, body: {} }))}
                    >
                      <About text="Send" about={i.number} />
                    </button>
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() => act(() => api.PUT('/api/invoices/{id}/mark-paid', { params: { id: i.id } }))}
                    >
                      <About text="Mark paid" about={i.number} />
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
    </>
  );
}

export function Disputes() {
  const can = useCan();
  const list = usePages((cursor) => api.GET('/api/disputes', { query: { limit: 25, ...cursor } }), []);
  return (
    <>
      <Heading>Disputes</Heading>
      <States loaded={list} empty={list.rows.length === 0} emptyText="No disputes.">
        <Table caption="Disputes" head={['Amount', 'Status', 'Reason', 'Payment', 'Evidence due', '']}>
          {list.rows.map((d) => (
            <tr key={d.id}>
              <td>
                <Money amount={d.amount} currency={d.currency} />
              </td>
              <td>
                <Status value={d.status} />
              </td>
              <td>{label(d.reason)}</td>
              <td>
                <a href={`${BASE}/payments/${d.payment_id}`}>{d.payment_id}</a>
              </td>
              <td>
                <Time at={d.evidence_due_by} />
              </td>
              <td class="row-actions">
                {can('disputes:write') && d.status === 'needs_response' && <Evidence id={d.id} sent={list.reload} />}
                {can('disputes:write') && d.status === 'needs_response' && (
                  <ConfirmButton
                    label="Accept"
                    about={d.id}
                    question="Accept this dispute? Its amount stays with the shopper."
                    confirm="Accept the dispute"
                    onConfirm={() => api.POST('/api/disputes/{id}/accept', { params: { id: d.id } })}
                    done={list.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {list.pager}
      </States>
    </>
  );
}

const EVIDENCE = [
  ['product_description', 'Product description'],
  ['customer_email_address', 'Customer e-mail'],
  ['shipping_tracking_number', 'Shipping tracking number'],
  ['refund_policy_disclosure', 'Refund policy disclosure'],
  ['uncategorized_text', 'Anything else'],
] as const;

/** The merchant's evidence for a dispute, sent to its provider (docs/api.md "Disputes"). */
function Evidence(props: { id: string; sent(): void }) {
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<Record<string, string>>({});
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const body = Object.fromEntries(Object.entries(fields).filter(([, v]) => v.trim() !== ''));
    void action
      .run(() => api.POST('/api/disputes/{id}/evidence', { params: { id: props.id }, body }))
      .then((ok) => {
        if (!ok) return;
        setOpen(false);
        props.sent();
      });
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        <About text="Evidence" about={props.id} />
      </button>
      <Dialog title="Send evidence" open={open} onClose={() => setOpen(false)}>
        <form onSubmit={submit}>
          {EVIDENCE.map(([key, name]) => (
            <label key={key}>
              {name}
              <textarea rows={2} maxLength={5000} value={fields[key] ?? ''} onInput={(e) => setFields({ ...fields, [key]: e.currentTarget.value })} />
            </label>
          ))}
          {action.failure}
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Send evidence
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

export function Connectors() {
  const list = usePages((cursor) => api.GET('/api/connectors', { query: { limit: 25, ...cursor } }), []);
  return (
    <>
      <Heading>Connectors</Heading>
      <States loaded={list} empty={list.rows.length === 0} emptyText="No connector accounts: payments use the service's own sandbox accounts.">
        <Table caption="Connectors" head={['Provider', 'Label', 'Mode', 'Status', 'Credentials', 'Fees', 'Created']}>
          {list.rows.map((c) => (
            <tr key={c.id}>
              <td>{label(c.provider)}</td>
              <td>{c.label ?? '—'}</td>
              <td>{label(c.mode)}</td>
              <td>
                <Status value={c.status} />
              </td>
              <td>
                <code>{c.credentials_hint}</code>
              </td>
              <td>
                {c.fees.percent}% + {c.fees.fixed}
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

export function Reconciliation() {
  const can = useCan();
  const settlements = usePages((cursor) => api.GET('/api/settlements', { query: { limit: 10, ...cursor } }), []);
  const exceptions = usePages((cursor) => api.GET('/api/reconciliation/exceptions', { query: { limit: 25, status: 'open', ...cursor } }), []);
  return (
    <>
      <Heading>Reconciliation</Heading>
      <h2>Settlements</h2>
      <States loaded={settlements} empty={settlements.rows.length === 0} emptyText="No settlements yet.">
        <Table caption="Settlements" head={['Id', 'Status', 'Created']}>
          {settlements.rows.map((s) => (
            <tr key={s.id}>
              <td>
                <code>{s.id}</code>
              </td>
              <td>
                <Status value={s.status} />
              </td>
              <td>
                <Time at={s.created_at} />
              </td>
            </tr>
          ))}
        </Table>
        {settlements.pager}
      </States>
      <h2>Open exceptions</h2>
      <States loaded={exceptions} empty={exceptions.rows.length === 0} emptyText="No open exceptions.">
        <Table caption="Open exceptions" head={['Kind', 'Object', 'Expected', 'Actual', 'Created', '']}>
          {exceptions.rows.map((x) => (
            <tr key={x.id}>
              <td>{label(x.kind)}</td>
              <td>
                <code>{x.payment_id ?? x.refund_id ?? x.dispute_id ?? x.provider_payout_id}</code>
              </td>
              <td>{x.expected ?? '—'}</td>
              <td>{x.actual ?? '—'}</td>
              <td>
                <Time at={x.created_at} />
              </td>
              <td>
                {can('finance:write') && (
                  <ConfirmButton
                    label="Resolve"
                    about={x.id}
                    question="Mark this exception as accepted?"
                    confirm="Resolve"
                    onConfirm={() =>
                      api.POST('/api/reconciliation/exceptions/{id}/resolve', { params: { id: x.id }, body: { resolution: 'accepted' } })
                    }
                    done={exceptions.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {exceptions.pager}
      </States>
    </>
  );
}
