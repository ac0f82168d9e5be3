/**
 * The signed-in dashboard: the navigation, the test-mode switch and banner, and the pages. Every page but Payments is
 * loaded when first opened, so the first page's script stays small.
 */
import type { ComponentChildren } from 'preact';
import { ErrorBoundary, lazy, LocationProvider, Route, Router, useLocation } from 'preact-iso';
import type { Group } from '../../shared/model/permissions.ts';
import { acceptInvitation, switchMerchant } from './api.ts';
import { Payment } from './pages/payment.tsx';
import { Payments } from './pages/payments.tsx';
import { useCan, useSession } from './session.tsx';
import { BASE, Heading, useAction } from './ui.tsx';

const Home = lazy(() => import('./pages/home.tsx').then((m) => m.Home));
const Developers = lazy(() => import('./pages/developers.tsx').then((m) => m.Developers));
const Webhooks = lazy(() => import('./pages/webhooks.tsx').then((m) => m.Webhooks));
const Routing = lazy(() => import('./pages/routing.tsx').then((m) => m.Routing));
const Team = lazy(() => import('./pages/team.tsx').then((m) => m.Team));
const AuditLog = lazy(() => import('./pages/audit-log.tsx').then((m) => m.AuditLog));
const Settings = lazy(() => import('./pages/settings.tsx').then((m) => m.Settings));
const Lists = () => import('./pages/lists.tsx');
const Customers = lazy(() => Lists().then((m) => m.Customers));
const Subscriptions = lazy(() => Lists().then((m) => m.Subscriptions));
const Invoices = lazy(() => Lists().then((m) => m.Invoices));
const Disputes = lazy(() => Lists().then((m) => m.Disputes));
const Connectors = lazy(() => Lists().then((m) => m.Connectors));
const Reconciliation = lazy(() => Lists().then((m) => m.Reconciliation));

/** The navigation, in the order the product names it, each with the group a member must read to see it. */
const NAV: { name: string; path: string; group: Group }[] = [
  { name: 'Home', path: '', group: 'analytics' },
  { name: 'Payments', path: '/payments', group: 'payments' },
  { name: 'Customers', path: '/customers', group: 'customers' },
  { name: 'Subscriptions', path: '/subscriptions', group: 'billing' },
  { name: 'Invoices', path: '/invoices', group: 'billing' },
  { name: 'Disputes', path: '/disputes', group: 'disputes' },
  { name: 'Routing', path: '/routing', group: 'routing' },
  { name: 'Connectors', path: '/connectors', group: 'connectors' },
  { name: 'Webhooks', path: '/webhooks', group: 'webhooks' },
  { name: 'Developers', path: '/developers', group: 'api_keys' },
  { name: 'Team', path: '/team', group: 'team' },
  { name: 'Audit log', path: '/audit-log', group: 'audit_log' },
  { name: 'Settings', path: '/settings', group: 'settings' },
  { name: 'Reconciliation', path: '/reconciliation', group: 'finance' },
];

export function Pages() {
  const { session } = useSession();
  if (session.merchant_id === null) return <Invitations />;
  return (
    <LocationProvider scope={BASE}>
      <Layout>
        <ErrorBoundary>
          <Router>
            <Route path={BASE} component={Home} />
            <Route path={`${BASE}/`} component={Home} />
            <Route path={`${BASE}/payments`} component={Payments} />
            <Route path={`${BASE}/payments/:id`} component={Payment} />
            <Route path={`${BASE}/customers`} component={Customers} />
            <Route path={`${BASE}/subscriptions`} component={Subscriptions} />
            <Route path={`${BASE}/invoices`} component={Invoices} />
            <Route path={`${BASE}/disputes`} component={Disputes} />
            <Route path={`${BASE}/routing`} component={Routing} />
            <Route path={`${BASE}/connectors`} component={Connectors} />
            <Route path={`${BASE}/webhooks`} component={Webhooks} />
            <Route path={`${BASE}/developers`} component={Developers} />
            <Route path={`${BASE}/team`} component={Team} />
            <Route path={`${BASE}/audit-log`} component={AuditLog} />
            <Route path={`${BASE}/settings`} component={Settings} />
            <Route path={`${BASE}/reconciliation`} component={Reconciliation} />
            <Route default component={NotFound} />
          </Router>
        </ErrorBoundary>
      </Layout>
    </LocationProvider>
  );
}

function Layout(props: { children: ComponentChildren }) {
  const { session, live, setLive, signOut } = useSession();
  const can = useCan();
  const { path } = useLocation();
  const business = session.memberships.find((m) => m.merchant_id === session.merchant_id);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="business">{business?.business_name ?? session.email}</span>
        <MerchantPicker />
        <button type="button" role="switch" aria-checked={!live} class="switch" onClick={() => setLive(!live)}>
          Test mode
        </button>
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      {!live && (
        <p class="test-banner" role="note">
          Test mode
        </p>
      )}
      <nav class="side" aria-label="Dashboard">
        <ul>
          {NAV.filter((item) => can(`${item.group}:read`)).map((item) => {
            const href = BASE + item.path;
            const current = item.path === '' ? path === BASE || path === `${BASE}/` : path.startsWith(href);
            return (
              <li key={item.name}>
                <a href={href} aria-current={current ? 'page' : undefined}>
                  {item.name}
                </a>
              </li>
            );
          })}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {props.children}
      </main>
    </div>
  );
}

function MerchantPicker() {
  const { session, refresh } = useSession();
  const action = useAction();
  if (session.memberships.length < 2) return null;
  return (
    <label class="picker">
      Business
      <select
        value={session.merchant_id ?? ''}
        disabled={action.busy}
        onChange={(e) => void action.run(() => switchMerchant(e.currentTarget.value).then(refresh))}
      >
        {session.memberships.map((m) => (
          <option key={m.merchant_id} value={m.merchant_id}>
            {m.business_name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A person invited to a team who belongs to no merchant yet: accept an invitation or sign out. */
function Invitations() {
  const { session, refresh, signOut } = useSession();
  const action = useAction();
  return (
    <main class="sign-in">
      <h1>Your invitations</h1>
      {session.invitations.length === 0 && <p class="empty">You have no pending invitation.</p>}
      <ul class="choices">
        {session.invitations.map((i) => (
          <li key={i.id}>
            <button type="button" disabled={action.busy} onClick={() => void action.run(() => acceptInvitation(i.id).then(refresh))}>
              Join {i.business_name} as {i.role.replace('_', ' ')}
            </button>
          </li>
        ))}
      </ul>
      {action.failure}
      <button type="button" onClick={() => void signOut()}>
        Sign out
      </button>
    </main>
  );
}

function NotFound() {
  return (
    <>
      <Heading>Page not found</Heading>
      <p>
        There is no such page. <a href={BASE}>Go to Home</a>.
      </p>
    </>
  );
}
