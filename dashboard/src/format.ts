/** Money and time as the viewer reads them: the currency's own minor units, the viewer's locale and time zone. */

/** How many minor units a currency has (JPY 0, EUR 2, BHD 3), as Intl knows it. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

export function money(amount: number, currency: string): string {
  const digits = minorDigits(currency);
  return new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(amount / 10 ** digits);
}

/** `12.34` in EUR → 1234; undefined when the text is not an amount in the currency's major units. */
export function toMinor(text: string, currency: string): number | undefined {
  const digits = minorDigits(currency);
  const match = /^(\d{1,8})(?:[.,](\d+))?$/.exec(text.trim());
  if (!match || (match[2] ?? '').length > digits) return undefined;
  const minor = Number(match[1]) * 10 ** digits + Number((match[2] ?? '').padEnd(digits, '0') || 0);
  return minor > 0 ? minor : undefined;
}

const DATE_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
export const dateTime = (iso: string) => DATE_TIME.format(new Date(iso));

/** `approval_rate` is a percentage (87.5), as the analytics endpoints answer it. */
export const percent = (pct: number) => new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 }).format(pct / 100);

/** `requires_action` → `Requires action` */
export const label = (value: string) => (value.charAt(0).toUpperCase() + value.slice(1)).replaceAll('_', ' ');
