/**
 * One payment: what it is, why it went to its provider, its attempts, refunds, disputes and every change on its
 * timeline; Capture, Void and Refund offered only where its state and the member's role allow (docs/api.md "Payments").
 */
import { useState } from 'preact/hooks';
import { api, type components } from '../api.ts';
import { label, minorDigits, money, toMinor } from '../format.ts';
import { useCan } from '../session.tsx';
import { BASE, Dialog, Failure, Heading, Loading, Money, Status, Table, Time, useAction, useLoad } from '../ui.tsx';

type Payment = components['schemas']['Payment'];

async function loadPayment(id: string) {
  const [payment, timeline, refunds] = await Promise.all([
    api.GET('/api/payments/{id}', { params: { id } }),
    api.GET('/api/payments/{id}/timeline', { params: { id } }),
    api.GET('/api/refunds', { query: { payment_id: id, limit: 100 } }),
  ]);
  // The disputes the timeline names, each read by id: no list of every dispute to search through.
  const disputeIds = [...new Set(timeline.data.filter((e) => e.object === 'dispute').map((e) => e.id))];
  const disputes = await Promise.all(disputeIds.map((did) => api.GET('/api/disputes/{id}', { params: { id: did } })));
  return { payment, timeline: timeline.data, refunds: refunds.data, disputes };
}

export function Payment(props: { id?: string; params?: { id?: string } }) {
  const id = props.params?.id ?? props.id ?? '';
  const loaded = useLoad(() => loadPayment(id), [id]);
  if (loaded.error) {
    return (
      <>
        <Heading>Payment</Heading>
        <Failure message={loaded.error} retry={loaded.reload} />
        <p>
          <a href={`${BASE}/payments`}>Back to payments</a>
        </p>
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { payment, timeline, refunds, disputes } = loaded.data;
  const card = payment.payment_method.card;
  return (
    <>
      <Heading>Payment</Heading>
      <p class="lead">
        <Money amount={payment.amount} currency={payment.currency} /> <Status value={payment.status} /> <code>{payment.id}</code>
      </p>
      <Actions payment={payment} changed={loaded.reload} />
      <dl class="facts">
        <dt>Amount</dt>
        <dd>
          <Money amount={payment.amount} currency={payment.currency} />
        </dd>
        <dt>Captured</dt>
        <dd>
          <Money amount={payment.amount_captured} currency={payment.currency} />
        </dd>
        <dt>Refunded</dt>
        <dd>
          <Money amount={payment.amount_refunded} currency={payment.currency} />
        </dd>
        <dt>Status</dt>
        <dd>{label(payment.status)}</dd>
        <dt>Customer</dt>
        <dd>{payment.customer?.email ?? payment.customer_id ?? '—'}</dd>
        <dt>Card</dt>
        <dd>
          {label(card.brand)} •••• {card.last4}, expires {String(card.exp_month).padStart(2, '0')}/{card.exp_year}
        </dd>
        <dt>Provider</dt>
        <dd>{payment.provider ? label(payment.provider) : '—'}</dd>
        <dt>Routing</dt>
        <dd>{payment.routing_decision?.reason ?? '—'}</dd>
        <dt>Risk score</dt>
        <dd>{payment.risk_score}</dd>
        <dt>3-D Secure</dt>
        <dd>{payment.three_d_secure ? `${label(payment.three_d_secure.flow)}, ${label(payment.three_d_secure.result)}` : 'Not used'}</dd>
        {payment.decline_code && (
          <>
            <dt>Decline code</dt>
            <dd>{payment.decline_code}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <Time at={payment.created_at} />
        </dd>
      </dl>

      <h2>Attempts</h2>
      <Table caption="Attempts" head={['Provider', 'Status', 'Decline code', 'Latency', 'At']}>
        {payment.attempts.map((a) => (
          <tr key={a.id}>
            <td>{label(a.provider)}</td>
            <td>
              <Status value={a.status} />
            </td>
            <td>{a.decline_code ?? '—'}</td>
            <td>{a.latency_ms === null ? '—' : `${a.latency_ms} ms`}</td>
            <td>
              <Time at={a.created_at} />
            </td>
          </tr>
        ))}
      </Table>

      <h2>Refunds</h2>
      {refunds.length === 0 ? (
        <p class="empty">No refunds.</p>
      ) : (
        <Table caption="Refunds" head={['Amount', 'Status', 'Reason', 'Created']}>
          {refunds.map((r) => (
            <tr key={r.id}>
              <td>
                <Money amount={r.amount} currency={r.currency ?? payment.currency} />
              </td>
              <td>
                <Status value={r.status} />
                {r.failure_reason && ` (${r.failure_reason})`}
              </td>
              <td>{r.reason ? label(r.reason) : '—'}</td>
              <td>
                <Time at={r.created_at} />
              </td>
            </tr>
          ))}
        </Table>
      )}

      <h2>Disputes</h2>
      {disputes.length === 0 ? (
        <p class="empty">No disputes.</p>
      ) : (
        <Table caption="Disputes" head={['Amount', 'Status', 'Reason', 'Evidence due']}>
          {disputes.map((d) => (
            <tr key={d.id}>
              <td>
                <Money amount={d.amount} currency={d.currency} />
              </td>
              <td>
                <Status value={d.status} />
              </td>
              <td>{label(d.reason)}</td>
              <td>
                <Time at={d.evidence_due_by} />
              </td>
            </tr>
          ))}
        </Table>
      )}

      <h2>Timeline</h2>
      <ol class="timeline">
        {timeline.map((e, i) => (
          <li key={`${e.id}-${i}`}>
            <Time at={e.at} /> <strong>{label(e.object)}</strong> {e.change.replace(`${e.object}.`, '').replaceAll('_', ' ')}
            <span class="muted">
              {' '}
              by {e.source.replaceAll('_', ' ')}
              {e.provider_reference && `, ${e.provider_reference}`}
              {e.reason && `: ${e.reason}`}
            </span>
          </li>
        ))}
      </ol>
    </>
  );
}

function Actions(props: { payment: Payment; changed(): void }) {
  const { payment } = props;
  const can = useCan();
  const action = useAction();
  const [refunding, setRefunding] = useState(false);
  if (!can('payments:write')) return null;
  const refundable = payment.amount_captured - payment.amount_refunded;
  const canCapture = payment.status === 'succeeded';
  const canVoid = payment.status === 'succeeded' || payment.status === 'requires_action';
  const canRefund = (payment.status === 'captured' || payment.status === 'refunded') && refundable > 0;
  if (!canCapture && !canVoid && !canRefund) return null;
  const act = (call: () => Promise<unknown>) => void action.run(call).then((ok) => ok && props.changed());
  return (
    <div class="actions">
      {canCapture && (
        <button
          type="button"
          disabled={action.busy}
          onClick={() => act(() => api.POST('/api/payments/{id}/capture', { params: { id: payment.id }, body: {} }))}
        >
          Capture
        </button>
      )}
      {canVoid && (
        <button
          type="button"
          class="danger"
          disabled={action.busy}
          onClick={() => act(() => api.POST('/api/payments/{id}/void', { params: { id: payment.id } }))}
        >
          Void
        </button>
      )}
      {canRefund && (
        <button type="button" disabled={action.busy} onClick={() => setRefunding(true)}>
          Refund
        </button>
      )}
      {action.failure}
      <Dialog title="Refund this payment" open={refunding} onClose={() => setRefunding(false)}>
        <RefundForm
          payment={payment}
          refundable={refundable}
          done={() => {
            setRefunding(false);
            props.changed();
          }}
          cancel={() => setRefunding(false)}
        />
      </Dialog>
    </div>
  );
}

function RefundForm(props: { payment: Payment; refundable: number; done(): void; cancel(): void }) {
  const { currency } = props.payment;
  const digits = minorDigits(currency);
  const [amount, setAmount] = useState((props.refundable / 10 ** digits).toFixed(digits));
  const [invalid, setInvalid] = useState<string>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const minor = toMinor(amount, currency);
    if (minor === undefined || minor > props.refundable) {
      setInvalid(`Type an amount up to ${money(props.refundable, currency)}, like ${(props.refundable / 10 ** digits).toFixed(digits)}.`);
      return;
    }
    setInvalid(undefined);
    void action
      .run(() => api.POST('/api/payments/{id}/refund', { params: { id: props.payment.id }, body: { amount: minor } }))
      .then((ok) => ok && props.done());
  };
  return (
    <form onSubmit={submit} noValidate>
      <p>Up to {money(props.refundable, currency)} can be refunded.</p>
      <label for="refund-amount">Amount</label>
      <input
        id="refund-amount"
        inputMode="decimal"
        autoComplete="off"
        value={amount}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={invalid ? 'refund-amount-error' : undefined}
        onInput={(e) => setAmount(e.currentTarget.value)}
      />
      {invalid && (
        <p id="refund-amount-error" class="field-error">
          {invalid}
        </p>
      )}
      {action.failure}
      <div class="actions">
        <button type="submit" disabled={action.busy}>
          Refund
        </button>
        <button type="button" class="secondary" onClick={props.cancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
