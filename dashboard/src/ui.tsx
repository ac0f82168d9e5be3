/** The pieces every page uses: loading, empty and error states, paged lists, tables that scroll in their own box, dialogs. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { messageOf } from './api.ts';
import { dateTime, money } from './format.ts';

export interface Loaded<T> {
  data?: T;
  error?: string;
  loading: boolean;
  reload(): void;
}

/** Runs `load` on mount and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const run = useRef(0);
  useEffect(() => {
    const id = ++run.current;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load().then(
      (data) => id === run.current && setState({ data, loading: false }),
      (error: unknown) => id === run.current && setState({ error: messageOf(error), loading: false }),
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  total?: number;
}

/**
 * A server-side paged list: the API's cursor (`starting_after` / `ending_before`), never the whole list. `load`
 * gets the cursor to send; a change of `deps` (filters) starts again from the first page.
 */
export function usePages<T extends { id: string }>(load: (cursor: Cursor) => Promise<Page<T>>, deps: unknown[]) {
  // the cursor belongs to the filters it was read with: new filters start again from the first page
  const filters = JSON.stringify(deps);
  const [at, setAt] = useState<{ filters: string; cursor: Cursor; first: boolean }>({ filters, cursor: {}, first: true });
  const { cursor, first } = at.filters === filters ? at : { cursor: {}, first: true };
  const setCursor = (next: Cursor) => setAt({ filters, cursor: next, first: false });
  const page = useLoad(() => load(cursor), [JSON.stringify(cursor), filters]);
  const rows = page.data?.data ?? [];
  const backwards = cursor.ending_before !== undefined;
  const hasNext = backwards ? true : (page.data?.has_more ?? false);
  const hasPrevious = !first && (backwards ? (page.data?.has_more ?? false) : true);
  return {
    ...page,
    rows,
    pager: (
      <Pager
        hasPrevious={hasPrevious && rows.length > 0}
        hasNext={hasNext && rows.length > 0}
        total={page.data?.total}
        onPrevious={() => setCursor({ ending_before: rows[0]!.id })}
        onNext={() => setCursor({ starting_after: rows.at(-1)!.id })}
      />
    ),
  };
}
export interface Cursor {
  starting_after?: string;
  ending_before?: string;
}

function Pager(props: { hasPrevious: boolean; hasNext: boolean; total?: number; onPrevious(): void; onNext(): void }) {
  if (!props.hasPrevious && !props.hasNext && props.total === undefined) return null;
  return (
    <div class="pager" role="group" aria-label="Pages">
      {props.total !== undefined && <span>{props.total} in all</span>}
      <button type="button" disabled={!props.hasPrevious} onClick={props.onPrevious}>
        Previous page
      </button>
      <button type="button" disabled={!props.hasNext} onClick={props.onNext}>
        Next page
      </button>
    </div>
  );
}

/** Loading, error and empty states around a list's content. */
export function States(props: { loaded: Loaded<unknown>; empty: boolean; emptyText: string; children: ComponentChildren }) {
  if (props.loaded.error) return <Failure message={props.loaded.error} retry={props.loaded.reload} />;
  if (props.loaded.loading && props.loaded.data === undefined) return <Loading />;
  if (props.empty) return <p class="empty">{props.emptyText}</p>;
  return <>{props.children}</>;
}

export const Loading = () => (
  <p class="loading" role="status">
    Loading…
  </p>
);

export function Failure(props: { message: string; retry?: () => void }) {
  return (
    <div class="failure" role="alert">
      <p>{props.message}</p>
      {props.retry && (
        <button type="button" onClick={props.retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export const Time = (props: { at: string | null | undefined }) => (props.at ? <time dateTime={props.at}>{dateTime(props.at)}</time> : <>—</>);
export const Money = (props: { amount: number; currency: string }) => <span class="money">{money(props.amount, props.currency)}</span>;
/** Visible text with a hidden tail naming what it acts on: a row's `Resend` reads `Resend evt_…` to a screen reader. */
export const About = (props: { text: string; about: string }) => (
  <>
    {props.text}
    <span class="visually-hidden"> {props.about}</span>
  </>
);
export const Status = (props: { value: string }) => <span class={`status status-${props.value}`}>{props.value.replaceAll('_', ' ')}</span>;

/** A table in its own scrolling box, so a narrow screen scrolls the table, never the page. */
export function Table(props: { caption: string; head: string[]; children: ComponentChildren }) {
  return (
    <div class="table-box" tabIndex={0} role="region" aria-label={props.caption}>
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            {props.head.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/**
 * A modal `<dialog>`: `showModal()` makes the rest of the page inert (focus stays inside) and Escape closes it; focus
 * goes back to what opened it.
 */
export function Dialog(props: { title: string; open: boolean; onClose(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) {
      const opener = document.activeElement as HTMLElement | null;
      dialog.showModal();
      return () => opener?.focus();
    }
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  const id = useId();
  return (
    <dialog ref={ref} aria-labelledby={id} onClose={props.onClose}>
      <h2 id={id}>{props.title}</h2>
      {props.open && props.children}
    </dialog>
  );
}

/** A button that runs a call, says so while it runs and shows the API's message if it fails. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      return true;
    } catch (e) {
      setError(messageOf(e));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, failure: error ? <Failure message={error} /> : null };
}

/** Where the dashboard is served. */
export const BASE = '/dashboard';

/** The page's heading: names the document and takes focus on navigation, so a screen reader hears the new page. */
export function Heading(props: { children: string; actions?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.children} · Dashboard`;
    ref.current?.focus({ preventScroll: true });
  }, [props.children]);
  return (
    <div class="page-head">
      <h1 ref={ref} tabIndex={-1}>
        {props.children}
      </h1>
      {props.actions}
    </div>
  );
}

/** A button whose action asks first, in a dialog: for what cannot be undone (revoke, delete, remove). */
export function ConfirmButton(props: {
  label: string;
  /** what the button acts on, for screen readers (`Revoke` → `Revoke Backend key`) */
  about?: string;
  question: string;
  confirm: string;
  /** the button that changes nothing (default `Cancel`) */
  keep?: string;
  onConfirm(): Promise<unknown>;
  done(): void;
}) {
  const [open, setOpen] = useState(false);
  const action = useAction();
  return (
    <>
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        {props.label}
        {props.about && <span class="visually-hidden"> {props.about}</span>}
      </button>
      <Dialog title={props.question} open={open} onClose={() => setOpen(false)}>
        {action.failure}
        <div class="actions">
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() =>
              void action.run(props.onConfirm).then((ok) => {
                if (!ok) return;
                setOpen(false);
                props.done();
              })
            }
          >
            {props.confirm}
          </button>
          <button type="button" class="secondary" onClick={() => setOpen(false)}>
            {props.keep ?? 'Cancel'}
          </button>
        </div>
      </Dialog>
    </>
  );
}
