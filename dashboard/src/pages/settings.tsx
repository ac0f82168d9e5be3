/**
 * The merchant's settings: the branding shoppers see on every hosted page, receipt, invoice PDF and e-mail (both
 * modes), and the current mode's checkout origins, the pages allowed to embed the hosted card fields (docs/api.md
 * "Branding", "Hosted card fields").
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { useCan } from '../session.tsx';
import { Failure, Heading, Loading, Time, useAction, useLoad } from '../ui.tsx';

interface Form {
  business_name: string;
  brand_color: string;
  support_email: string;
  origins: string;
}

export function Settings() {
  const can = useCan();
  const writable = can('settings:write');
  const loaded = useLoad(() => api.GET('/api/settings'), []);
  const [form, setForm] = useState<Form>({ business_name: '', brand_color: '', support_email: '', origins: '' });
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => {
    const data = loaded.data;
    if (data)
      setForm({
        business_name: data.business_name,
        brand_color: data.brand_color ?? '',
        support_email: data.support_email ?? '',
        origins: data.checkout_origins.join('\n'),
      });
  }, [loaded.data]);
  if (loaded.error) return <Failure message={loaded.error} retry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const field = (name: keyof Form) => ({
    id: name,
    name,
    value: form[name],
    readOnly: !writable,
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });
  const submit = (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const body = {
      business_name: form.business_name,
      brand_color: form.brand_color.trim() || null,
      support_email: form.support_email.trim() || null,
      checkout_origins: form.origins.split(/\s+/).filter(Boolean),
    };
    void action
      .run(() => api.PUT('/api/settings', { body }))
      .then((ok) => {
        setSaved(ok);
        if (ok) loaded.reload();
      });
  };
  return (
    <>
      <Heading>Settings</Heading>
      <form class="card" onSubmit={submit}>
        <label for="business_name">Business name</label>
        <input {...field('business_name')} required maxLength={100} />
        <label for="brand_color">Brand colour (#rrggbb)</label>
        <input {...field('brand_color')} pattern="#[0-9a-fA-F]{6}" placeholder="#0f766e" />
        <label for="support_email">Support e-mail</label>
        <input {...field('support_email')} type="email" />
        <label for="origins">Checkout origins (one a line)</label>
        <textarea {...field('origins')} rows={4} />
        <p class="muted">
          Last changed <Time at={loaded.data.updated_at} />
        </p>
        {action.failure}
        {saved && (
          <p class="notice" role="status">
            Saved.
          </p>
        )}
        {writable && (
          <button type="submit" disabled={action.busy}>
            Save
          </button>
        )}
      </form>
    </>
  );
}
