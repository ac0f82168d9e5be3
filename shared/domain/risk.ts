/**
 * Risk score 0–100 from real signals; ≥ 85 declines the payment as fraudulent before any provider sees it.
 * Every signal that contributed is returned, so a decision can be explained.
 */
import { binOf } from '../model/cards.ts';

export const RISK_DECLINE_THRESHOLD = 85;

/** Cards the sandbox treats as known fraud (Stripe's "always blocked" test card). */
const KNOWN_FRAUD_CARDS = new Set(['4100000000000019']);

const DISPOSABLE_EMAIL_DOMAINS = new Set([
  'mailinator.com',
  'guerrillamail.com',
  '10minutemail.com',
  'tempmail.com',
  'temp-mail.org',
  'yopmail.com',
  'trashmail.com',
  'sharklasers.com',
  'getnada.com',
  'dispostable.com',
  'throwawaymail.com',
  'maildrop.cc',
]);

/**
 * Issuer country by card number prefix, longest first: Stripe's international test cards carry the ISO numeric
 * country in digits 7–9 (4000 00|250|… is France). Unknown prefixes give no signal.
 */
const ISSUER_COUNTRIES: ReadonlyArray<[string, string]> = [
  ['400000076', 'BR'],
  ['400000124', 'CA'],
  ['400000036', 'AU'],
  ['400000250', 'FR'],
  ['400000276', 'DE'],
  ['400000724', 'ES'],
  ['400000380', 'IT'],
  ['400000528', 'NL'],
  ['400000826', 'GB'],
  ['400000840', 'US'],
  ['400000392', 'JP'],
  ['400000356', 'IN'],
  ['424242', 'US'],
  ['555555', 'US'],
  ['378282', 'US'],
  ['601111', 'US'],
  ['353011', 'JP'],
];

const COUNTRY_CURRENCIES: Record<string, readonly string[]> = {
  US: ['USD'],
  GB: ['GBP'],
  FR: ['EUR'],
  DE: ['EUR'],
  ES: ['EUR'],
  IT: ['EUR'],
  NL: ['EUR'],
  CA: ['CAD'],
  AU: ['AUD'],
  BR: ['BRL'],
  JP: ['JPY'],
  IN: ['INR'],
};

export interface RiskSignals {
  cardNumber: string;
  currency: string;
  amount: number;
  customerEmail?: string;
  /** attempts with this card fingerprint in the current hour, this one included */
  cardAttemptsThisHour: number;
  /** the merchant's mean approved amount in this currency in the recent window, undefined without history */
  merchantMeanAmount?: number;
}

export interface RiskAssessment {
  score: number;
  reasons: string[];
}

export function assessRisk(s: RiskSignals): RiskAssessment {
  if (KNOWN_FRAUD_CARDS.has(s.cardNumber)) return { score: 100, reasons: ['card is on the fraud list'] };
  let score = 5;
  const reasons: string[] = [];
  const add = (points: number, reason: string) => {
    score += points;
    reasons.push(reason);
  };

  if (s.cardAttemptsThisHour > 10) add(60, `${s.cardAttemptsThisHour} attempts with this card in an hour`);
  else if (s.cardAttemptsThisHour > 5) add(30, `${s.cardAttemptsThisHour} attempts with this card in an hour`);

  if (s.merchantMeanAmount && s.merchantMeanAmount > 0) {
    const ratio = s.amount / s.merchantMeanAmount;
    if (ratio > 20) add(30, `amount is ${Math.round(ratio)}× the merchant's recent mean`);
    else if (ratio > 5) add(15, `amount is ${Math.round(ratio)}× the merchant's recent mean`);
  }

  const bin = binOf(s.cardNumber, 9);
  const country = bin ? ISSUER_COUNTRIES.find(([prefix]) => bin.startsWith(prefix))?.[1] : undefined;
  const currencies = country ? COUNTRY_CURRENCIES[country] : undefined;
  if (currencies && !currencies.includes(s.currency)) add(10, `card issued in ${country}, paying in ${s.currency}`);

  const domain = s.customerEmail?.split('@')[1];
  if (!domain) add(5, 'no customer e-mail');
  else if (DISPOSABLE_EMAIL_DOMAINS.has(domain)) add(20, `disposable e-mail domain ${domain}`);

  return { score: Math.max(0, Math.min(100, score)), reasons };
}
