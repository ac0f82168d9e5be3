/**
 * `GET /hosted/card-form.js`: the shopper pages' card form checks itself before it is sent (Luhn, expiry, CVC), so a
 * typo is shown next to its field with everything typed kept (the server checks again, and answers the page with the
 * errors but without the number, which no answer carries). A second click while the form is sent sends nothing.
 * Bundled for browsers by `shared/hosted/browser-scripts.ts`.
 */
import { luhnValid } from '../../model/card-numbers.ts';

const digits = (value: string) => value.replace(/[\s-]/g, '');

function problemOf(name: string, value: string): string | undefined {
  if (name === 'number') {
    const d = digits(value);
    if (!/^\d{13,19}$/.test(d)) return 'Enter the 13 to 19 digits of the card number.';
    if (!luhnValid(d)) return 'This card number has a typo: check the digits.';
  }
  if (name === 'exp') {
    const match = /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{2})\s*$/.exec(value);
    if (!match) return 'Enter the expiry as MM / YY.';
    const now = new Date();
    const [month, year] = [Number(match[1]), 2000 + Number(match[2])];
    if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) return 'This card has expired.';
  }
  if (name === 'cvc' && !/^\d{3,4}$/.test(value.trim())) return 'Enter the 3 or 4 digit security code.';
  return undefined;
}

function show(input: HTMLInputElement, problem: string | undefined): void {
  const note = document.getElementById(`${input.id}-error`);
  if (note) note.textContent = problem ?? '';
  if (problem) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
}

for (const form of Array.from(document.querySelectorAll<HTMLFormElement>('form[data-card-form]'))) {
  let sent = false;
  form.addEventListener('submit', (event) => {
    const inputs = ['number', 'exp', 'cvc']
      .map((name) => form.elements.namedItem(name))
      .filter((el): el is HTMLInputElement => el instanceof HTMLInputElement);
    const wrong = inputs.filter((input) => {
      const problem = problemOf(input.name, input.value);
      show(input, problem);
      return problem !== undefined;
    });
    if (wrong.length > 0 || sent) {
      event.preventDefault();
      wrong[0]?.focus();
      return;
    }
    sent = true;
    form.querySelector('button[type=submit]')?.setAttribute('aria-disabled', 'true');
  });
}
