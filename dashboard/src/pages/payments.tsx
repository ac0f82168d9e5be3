/**
 * Payments: the API's list, a page at a time (its cursor, never a full scan), filtered by status, provider and the
 * viewer's own dates, and a `Search` box for an id, a customer's e-mail or a card's last 4 digits.
 */
import { useLocation } from 'preact-iso';
import { useState } from 'preact/hooks';
import { api, type components } from '../api.ts';
import { label } from '../format.ts';
import { BASE, type Cursor, Heading, Money, States, Status, Table, Time, usePages } from '../ui.tsx';

type Query = NonNullable<NonNullable<Parameters<typeof api.GET<'/api/payments/list'>>[1]>['query']>;
const STATUSES = ['requires_action', 'succeeded', 'captured', 'voided', 'refunded', 'failed'] as const;
const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const;
const PAYMENT_ID = /^pay_[0-9a-hjkmnp-tv-z]{26}$/;

interface Filters {
  status: string;
  provider: string;
  from: string;
  to: string;
  search: string;
}

/** A local calendar day's first or last instant, as the API's ISO filter: the viewer's day, not UTC's. */
const dayEdge = (date: string, end: boolean) => new Date(`${date}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString();

/** The search box's text as the list's filter: an e-mail or a card's last 4 digits (an id opens the payment). */
function searchFilter(text: string): Query {
  if (text.includes('@')) return { customer_email: text };
  if (/^\d{4}$/.test(text)) return { card_last4: text };
  throw new Error('Search takes a payment id (pay_…), a customer’s e-mail or a card’s last 4 digits');
}

async function listPayments(filters: Filters, cursor: Cursor) {
  const query: Query = { limit: 25, ...cursor };
  if (filters.status) query.status = filters.status as (typeof STATUSES)[number];
  if (filters.provider) query.provider = filters.provider as (typeof PROVIDERS)[number];
  if (filters.from) query['created[gte]'] = dayEdge(filters.from, false);
  if (filters.to) query['created[lte]'] = dayEdge(filters.to, true);
  return api.GET('/api/payments/list', { query: filters.search ? { ...query, ...searchFilter(filters.search) } : query });
}

export function Payments() {
  const { route } = useLocation();
  const [filters, setFilters] = useState<Filters>({ status: '', provider: '', from: '', to: '', search: '' });
  const [searchText, setSearchText] = useState('');
  const list = usePages((cursor) => listPayments(filters, cursor), [filters]);
  const set = (key: keyof Filters) => (event: Event) => setFilters({ ...filters, [key]: (event.currentTarget as HTMLInputElement).value });

  const search = (event: Event) => {
    event.preventDefault();
    const text = searchText.trim();
    if (PAYMENT_ID.test(text)) route(`${BASE}/payments/${text}`);
    else setFilters({ ...filters, search: text });
  };

  return (
    <>
      <Heading>Payments</Heading>
      <form class="search" role="search" onSubmit={search}>
        <label for="payment-search">Search</label>
        <input
          id="payment-search"
          type="search"
          placeholder="pay_…, e-mail or last 4"
          value={searchText}
          onInput={(e) => setSearchText(e.currentTarget.value)}
        />
        <button type="submit">Search</button>
      </form>
      <fieldset class="filters">
        <legend>Filters</legend>
        <label>
          Status
          <select value={filters.status} onChange={set('status')}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {label(s)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Provider
          <select value={filters.provider} onChange={set('provider')}>
            <option value="">Any</option>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {label(p)}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" value={filters.from} onChange={set('from')} />
        </label>
        <label>
          To
          <input type="date" value={filters.to} onChange={set('to')} />
        </label>
      </fieldset>
      <States loaded={list} empty={list.rows.length === 0} emptyText="No payments match.">
        <PaymentTable payments={list.rows} />
        {list.pager}
      </States>
    </>
  );
}

export function PaymentTable(props: { payments: components['schemas']['Payment'][] }) {
  return (
    <Table caption="Payments" head={['Amount', 'Status', 'Customer', 'Card', 'Provider', 'Created']}>
      {props.payments.map((p) => (
        <tr key={p.id}>
          <td>
            <a href={`${BASE}/payments/${p.id}`}>
              <Money amount={p.amount} currency={p.currency} />
              <span class="visually-hidden"> payment {p.id}</span>
            </a>
          </td>
          <td>
            <Status value={p.status} />
          </td>
          <td>{p.customer?.email ?? '—'}</td>
          <td>
            {label(p.payment_method.card.brand)} •••• {p.payment_method.card.last4}
          </td>
          <td>{p.provider ? label(p.provider) : '—'}</td>
          <td>
            <Time at={p.created_at} />
          </td>
        </tr>
      ))}
    </Table>
  );
}
