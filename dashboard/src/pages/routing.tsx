/**
 * Routing: the rules, lowest priority first (create, disable, delete), and a simulation that says which provider a
 * payment would go to and why, without charging anything (docs/api.md "Routing").
 */
import { useState } from 'preact/hooks';
import { api, type components } from '../api.ts';
import { label, toMinor } from '../format.ts';
import { useCan } from '../session.tsx';
import { About, ConfirmButton, Heading, States, Status, Table, useAction, usePages } from '../ui.tsx';

type NewRule = components['schemas']['CreateRoutingRuleBody'];
type Condition = NewRule['conditions'][number];
const PROVIDERS = ['stripe', 'adyen', 'braintree'] as const;
const FIELDS = ['currency', 'amount', 'card_brand', 'card_bin', 'customer_email_domain'];
const OPERATORS: Condition['operator'][] = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'contains',
];

export function Routing() {
  const can = useCan();
  const writable = can('routing:write');
  const rules = usePages((cursor) => api.GET('/api/routing/rules', { query: { limit: 50, ...cursor } }), []);
  const toggle = useAction();
  const sorted = [...rules.rows].sort((a, b) => a.priority - b.priority);
  return (
    <>
      <Heading>Routing</Heading>
      <h2>Rules</h2>
      {writable && <CreateRule created={rules.reload} />}
      {toggle.failure}
      <States loaded={rules} empty={rules.rows.length === 0} emptyText="No rules: every payment is routed by score.">
        <Table caption="Routing rules" head={['Priority', 'Name', 'When', 'Provider', 'Strategy', 'Status', '']}>
          {sorted.map((r) => (
            <tr key={r.id}>
              <td>{r.priority}</td>
              <td>{r.name}</td>
              <td class="wrap">{r.conditions.map((c) => `${c.field} ${c.operator.replaceAll('_', ' ')} ${c.value}`).join(' and ') || 'Always'}</td>
              <td>{label(r.provider)}</td>
              <td>{label(r.strategy)}</td>
              <td>
                <Status value={r.status} />
              </td>
              <td class="row-actions">
                {writable && (
                  <button
                    type="button"
                    disabled={toggle.busy}
                    onClick={() =>
                      void toggle
                        .run(() =>
                          api.PUT('/api/routing/rules/{id}', {
                            params: { id: r.id },
                            body: { status: r.status === 'active' ? 'disabled' : 'active' },
                          }),
                        )
                        .then(rules.reload)
                    }
                  >
                    <About text={r.status === 'active' ? 'Disable' : 'Enable'} about={r.name} />
                  </button>
                )}
                {writable && (
                  <ConfirmButton
                    label="Delete"
                    about={r.name}
                    question={`Delete the rule ${r.name}?`}
                    confirm="Delete"
                    onConfirm={() => api.DELETE('/api/routing/rules/{id}', { params: { id: r.id } })}
                    done={rules.reload}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
        {rules.pager}
      </States>
      <Simulate />
    </>
  );
}

function CreateRule(props: { created(): void }) {
  const empty = { name: '', provider: 'stripe', priority: '100', field: 'currency', operator: 'equals', value: '' };
  const [form, setForm] = useState(empty);
  const action = useAction();
  const set = (key: keyof typeof form) => (event: Event) => setForm({ ...form, [key]: (event.currentTarget as HTMLInputElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    const conditions: Condition[] = form.value.trim()
      ? [{ field: form.field, operator: form.operator as Condition['operator'], value: form.value.trim() }]
      : [];
    const body: NewRule = { name: form.name.trim(), provider: form.provider as NewRule['provider'], priority: Number(form.priority), conditions };
    void action
      .run(() => api.POST('/api/routing/rules', { body }))
      .then((ok) => {
        if (!ok) return;
        setForm(empty);
        props.created();
      });
  };
  return (
    <form class="card" onSubmit={submit}>
      <h3>Add a rule</h3>
      <div class="row">
        <label>
          Rule name
          <input required maxLength={100} value={form.name} onInput={set('name')} />
        </label>
        <label>
          Provider
          <select value={form.provider} onChange={set('provider')}>
            {PROVIDERS.map((p) => (
              <option key={p} value={p}>
                {label(p)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Priority
          <input type="number" min={0} max={1000} required value={form.priority} onInput={set('priority')} />
        </label>
      </div>
      <fieldset class="row">
        <legend>When (leave the value empty for every payment)</legend>
        <label>
          Field
          <select value={form.field} onChange={set('field')}>
            {FIELDS.map((f) => (
              <option key={f} value={f}>
                {label(f)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Operator
          <select value={form.operator} onChange={set('operator')}>
            {OPERATORS.map((o) => (
              <option key={o} value={o}>
                {label(o)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Value
          <input value={form.value} onInput={set('value')} />
        </label>
      </fieldset>
      {action.failure}
      <button type="submit" disabled={action.busy}>
        Add rule
      </button>
    </form>
  );
}

function Simulate() {
  const [form, setForm] = useState({ amount: '10.00', currency: 'EUR', email: '' });
  const [result, setResult] = useState<components['schemas']['RouteSimulation']>();
  const action = useAction();
  const set = (key: keyof typeof form) => (event: Event) => setForm({ ...form, [key]: (event.currentTarget as HTMLInputElement).value });
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const amount = toMinor(form.amount, form.currency.trim().toUpperCase() || 'EUR');
      if (amount === undefined) throw new Error(`${form.amount} is not an amount such as 12.34`);
      const customer = form.email.trim() ? { customer: { email: form.email.trim() } } : {};
      setResult(await api.POST('/api/routing/simulate', { body: { amount, currency: form.currency.trim(), ...customer } }));
    });
  };
  return (
    <section aria-labelledby="simulate">
      <h2 id="simulate">Simulate</h2>
      <form class="card" onSubmit={submit}>
        <div class="row">
          <label>
            Amount
            <input inputMode="decimal" required value={form.amount} onInput={set('amount')} />
          </label>
          <label>
            Currency
            <input required minLength={3} maxLength={3} value={form.currency} onInput={set('currency')} />
          </label>
          <label>
            Customer e-mail
            <input type="email" value={form.email} onInput={set('email')} />
          </label>
        </div>
        {action.failure}
        <button type="submit" disabled={action.busy}>
          Simulate
        </button>
      </form>
      {result && (
        <p class="notice" role="status">
          {result.provider ? label(result.provider) : 'No provider'}: {result.routing_decision.reason}
        </p>
      )}
    </section>
  );
}
