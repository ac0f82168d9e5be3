import * as ledger from '../store/ledger.ts';
import { type Merchant, ownerOf } from './auth.ts';

/** Available and pending funds per currency, summed from the balance cells (no payment is read). */
export async function getBalance(merchant: Merchant) {
  const cells = await ledger.readBalanceCells(ownerOf(merchant));
  const available = new Map<string, number>();
  const pending = new Map<string, number>();
  for (const cell of cells) {
    const into = cell.bucket === 'available' ? available : pending;
    into.set(cell.currency, (into.get(cell.currency) ?? 0) + cell.amount);
  }
  const currencies = [...new Set([...available.keys(), ...pending.keys()])].sort();
  // Refunds draw on available funds first, then pending ones; one recorded against available alone (see
  // unplannedRefundCounters) is shown taken from pending here, as it is once those funds are released.
  for (const currency of currencies) {
    const owed = Math.min(-(available.get(currency) ?? 0), pending.get(currency) ?? 0);
    if (owed <= 0) continue;
    available.set(currency, (available.get(currency) ?? 0) + owed);
    pending.set(currency, (pending.get(currency) ?? 0) - owed);
  }
  return {
    object: 'balance' as const,
    livemode: merchant.livemode,
    available: currencies.map((currency) => ({ amount: available.get(currency) ?? 0, currency })),
    pending: currencies.map((currency) => ({ amount: pending.get(currency) ?? 0, currency })),
  };
}
