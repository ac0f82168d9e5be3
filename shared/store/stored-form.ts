import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Target } from './commit.ts';

/*
 * How an entity's fields are stored when not as they are, so that a payment as its create commits it fits one write
 * unit (1 KB): the item is written in a transaction (billed twice) and copied whole into the merchant's list index,
 * so each KB over costs three units per create.
 * - `packed` fields are stored deflated. Only fields that no condition, filter or index reads, and that a change sets
 *   whole (never appends to), are packed; each alone, so a change may set one without the others. A field once packed
 *   stays listed: items written since hold it packed, and only a listed field is unpacked when read.
 * - `packedEach`: list fields a change appends to (a `history`), stored as a list of packed entries.
 * - `nullsOmitted`: a null field is not stored (a change that sets it to null removes it); its schema reads it back
 *   as null.
 *
 * A packed value is a version byte, then the value's JSON deflated against that version's dictionary: version 1 holds
 * the words these fields are made of (the routing reason's sentences, the attempt's, the card's and a history entry's
 * field names): a routing decision of 360 bytes of JSON packs to about 90, where plain deflate gives 220. Version 2
 * holds the API's views of the objects events report, the payment's last, for an event's `data` (read, not yet
 * written: store/events.ts): a payment's event of 1.1–1.2 KB of JSON packs to 230–330 bytes, where plain deflate gives
 * 500–650. A version's dictionary never changes once values are written with it; a new dictionary is a new version,
 * and every version stays readable.
 */

interface StoredForm {
  packed: readonly string[];
  packedEach: readonly string[];
  nullsOmitted: boolean;
}
const STORED_FORMS: Partial<Record<Target['entity'], StoredForm>> = {
  payment: { packed: ['routing_decision', 'attempts', 'card', 'metadata'], packedEach: ['history'], nullsOmitted: true },
};

/** Marked pure, so a bundle that never packs or unpacks a value leaves the dictionaries out. */
const DICTIONARIES: Record<number, Buffer> = {
  1: /* @__PURE__ */ Buffer.from(
    /* @__PURE__ */ [
      '{"fingerprint":"","last4":"","exp_month":1,"exp_year":20,"brand":"visa"}{"brand":"mastercard"}{"brand":"amex"}',
      'discover jcb diners unionpay unknown',
      '{"at":"20","change":"payment.refunded","source":"reconciler","reference":null}{"change":"refund.failed"}',
      '{"change":"capture.confirmed","source":"provider_webhook"}{"change":"cancellation.confirmed"}{"source":"schedule"}',
      '{"change":"payment.voided"}{"change":"payment.failed"}{"change":"payment.captured"}',
      '{"change":"payment.succeeded","source":"api","reference":"ch_"}pi_ adyen_ch_ braintree_ psp_ re_',
      '[{"id":"att_01","status":"declined","provider":"braintree","connector_id":"con_01","decline_code":"insufficient_funds",',
      '"latency_ms":null,"created_at":"20"}{"status":"failed","decline_code":"processing_error"}{"status":"unknown"}',
      '{"status":"reversed"}{"status":"pending"}generic_decline card_declined do_not_honor fraudulent expired_card provider_down',
      '{"strategy":"card_on_file"}{"strategy":"round_robin","reason":"Round robin: is next in turn ( → )."}',
      '{"strategy":"lowest_cost","reason":"Lowest cost for  USD:  EUR:  GBP:  in minor units, vs  (2.9% + 30), (2.5% + 25)"}',
      '{"strategy":"forced","reason":"The request forced , so no other provider is tried."}',
      '{"strategy":"rules","reason":"Rule \\"\\" (rul_01, priority ) matched and sends this payment to  only.',
      ' matched and puts  first; failover by smart score:  answered processing_error, so the payment failed over to ',
      ' Connector accounts in order: con_01 (stripe) → con_01 (adyen) → con_01 (braintree); sent through con_01',
      'exploring  (score ) ahead of the best score, , to keep its approval rate current',
      '{"strategy":"smart","reason":"Smart routing chose stripe: highest score adyen  (approval % over  recent attempts,',
      '  ms, fee %); then braintree  (approval % over  recent attempts,  ms, fee %), stripe  (approval % over  recent',
      ' attempts,  ms, fee %).","alternatives_considered":["adyen","braintree","stripe"],"latency_ms":',
    ].join(''),
  ),
  2: /* @__PURE__ */ Buffer.from(
    /* @__PURE__ */ [
      '{"object":{"id":"evt_01","object":"event","type":"test_clock.ready","frozen_time":"20","status":"ready","deleted":false',
      '{"object":{"id":"set_01","object":"settlement","status":"pending","arrival_date":"20","transactions":1,"paid_at":null',
      '{"object":{"id":"dp_01","object":"dispute","status":"needs_response","reason":"fraudulent","evidence_due_by":"20",',
      '"provider_reference":"","history":[{"at":"20","change":"dispute.created","source":"provider_webhook"}],"evidence":null',
      '{"object":{"id":"sub_01","object":"subscription","status":"active","plan":{"name":"","amount":,"currency":"USD",',
      '"interval":"month","interval_count":1},"quantity":1,"current_period_start":"20","next_billing":"20","past_due":false,',
      '"retry_at":null,"cancelled_at":null,"latest_invoice":null,"subscription_id":null,',
      '{"object":{"id":"inv_01","object":"invoice","number":"INV-","status":"draft","items":[{"description":"","quantity":1,',
      '"amount":}],"subtotal":,"tax_rate":"0","tax":0,"total":,"due_date":"20","pdf_url":"https://","sent_at":null,',
      '"sent_to":null,"channel":null,"paid_at":null,"period_start":null,',
      '{"object":{"id":"ref_01","object":"refund","payment_id":"pay_01","status":"succeeded","failure_reason":null,',
      '"reason":"requested_by_customer","refund_id":null,"status":"failed","decline_code":"insufficient_funds","card_declined',
      '"payment.succeeded","payment.captured","payment.refunded","payment.voided","payment.failed"EUR GBP JPY',
      '"strategy":"round_robin","reason":"Round robin: is next in turn ( → ).""strategy":"lowest_cost","reason":"Lowest cost',
      '"strategy":"rules","reason":"Rule \\"\\" (rul_01, priority ) matched and sends this payment to  only."forced',
      ' Connector accounts in order:  (sandbox) → adyen (sandbox) → braintree (sandbox) → stripe via con_01',
      '"status":"voided""status":"refunded""status":"captured""status":"failed""declined","unknown","reversed"mastercard amex',
      '{"object":{"id":"pay_01","object":"payment","status":"succeeded","amount":,"currency":"USD","amount_captured":0,',
      '"amount_refunded":0,"provider":"stripe","connector_id":null,"routing_decision":{"strategy":"smart","reason":"Smart',
      ' routing chose adyen: highest score adyen  (approval % over  recent attempts,  ms, fee %); then stripe  (approval',
      ' % over  recent attempts,  ms, fee %), braintree  (approval % over  recent attempts,  ms, fee %).",',
      '"alternatives_considered":["stripe","braintree"],"latency_ms":},"risk_score":,"decline_code":null,"attempts":[{"id":',
      '"att_01","status":"authorized","provider":"adyen","connector_id":null,"decline_code":null,"latency_ms":,"created_at":',
      '"20"}],"payment_method":{"type":"card","card":{"brand":"visa","last4":"","exp_month":,"exp_year":20}},"customer_id":',
      '"cus_01","customer":{"email":"","name":"","phone":""},"description":null,"metadata":{},"livemode":false,"created_at":',
      '"2026-","sequence":}}',
    ].join(''),
  ),
};
/** What packs a stored entity's fields */
const VERSION = 1;
/** What would pack an event's `data` (store/events.ts reads it; no version writes it yet) */
export const EVENT_DATA_VERSION = 2;

export function pack(value: unknown, version = VERSION): Uint8Array {
  const dictionary = DICTIONARIES[version];
  if (!dictionary) throw new Error(`no dictionary of version ${version} to pack with`);
  const deflated = deflateRawSync(JSON.stringify(value), { dictionary });
  return Buffer.concat([Buffer.of(version), deflated]);
}

/** The value `pack` was given; throws on bytes of an unknown version or that do not inflate. */
export function unpack(bytes: Uint8Array): unknown {
  const dictionary = DICTIONARIES[bytes[0]!];
  if (!dictionary) throw new Error(`packed value of unknown version ${bytes[0]}`);
  return JSON.parse(inflateRawSync(bytes.subarray(1), { dictionary }).toString('utf8'));
}

/** A field's value as `form` stores it. */
function storedValue(form: StoredForm, name: string, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (form.packed.includes(name)) return pack(value);
  if (form.packedEach.includes(name) && Array.isArray(value)) return value.map((entry) => pack(entry));
  return value;
}

/** A change's fields as `entity` stores them: what to set, and the null fields to remove (or leave out of a new item). */
export function storedFields(entity: Target['entity'], fields: Record<string, unknown>): { set: Record<string, unknown>; unset: string[] } {
  const form = STORED_FORMS[entity];
  if (!form) return { set: fields, unset: [] };
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (value === null && form.nullsOmitted) unset.push(name);
    else set[name] = storedValue(form, name, value);
  }
  return { set, unset };
}

/** Entries a change appends to list fields, as `entity` stores them. */
export function storedEntries(entity: Target['entity'], append: Record<string, readonly unknown[]>): Record<string, readonly unknown[]> {
  const form = STORED_FORMS[entity];
  if (!form) return append;
  return Object.fromEntries(Object.entries(append).map(([name, entries]) => [name, storedValue(form, name, entries) as unknown[]]));
}

/**
 * An item read back with its packed fields unpacked. Items written before a field was packed hold the value itself,
 * read as it is. A value that does not unpack reads as a text saying so, which the record's schema refuses by name.
 */
export function unpackFields(entity: Target['entity'], item: Record<string, unknown>): Record<string, unknown> {
  const form = STORED_FORMS[entity];
  if (!form) return item;
  const unpacked = { ...item };
  for (const name of form.packed) if (name in item) unpacked[name] = unpackedValue(item[name]);
  for (const name of form.packedEach) {
    const entries = item[name];
    if (Array.isArray(entries)) unpacked[name] = entries.map(unpackedValue);
  }
  return unpacked;
}

const UNREADABLE = 'a packed value that does not unpack';

function unpackedValue(value: unknown): unknown {
  if (!(value instanceof Uint8Array)) return value;
  try {
    return unpack(value);
  } catch {
    return UNREADABLE;
  }
}
