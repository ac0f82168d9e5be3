import {
  type CustomerChanges,
  type CustomerRecord,
  getCustomer as getRecord,
  listCustomers as listRecords,
  putCustomer,
  updateCustomer as updateRecord,
} from '../store/customers.ts';
import type { PageQuery } from '../store/pagination.ts';
import { NotFound } from './errors.ts';
import { freshOrigin, idFor, type Origin } from './ids.ts';

const view = (c: CustomerRecord) => ({
  id: c.id,
  object: 'customer' as const,
  email: c.email,
  name: c.name,
  phone: c.phone,
  metadata: c.metadata,
  created_at: c.created_at,
});

export interface NewCustomer {
  email: string;
  name?: string;
  phone?: string;
  metadata?: Record<string, string>;
}

/** A retried create (same origin) answers the customer its first run created. */
export async function createCustomer(merchantId: string, input: NewCustomer, origin: Origin = freshOrigin()) {
  const customer: CustomerRecord = {
    id: idFor('customer', origin),
    merchant_id: merchantId,
    email: input.email,
    name: input.name ?? null,
    phone: input.phone ?? null,
    metadata: input.metadata ?? {},
    created_at: new Date(origin.at).toISOString(),
  };
  return view((await putCustomer(customer)).record);
}

export async function getCustomer(merchantId: string, customerId: string) {
  const customer = await getRecord(merchantId, customerId);
  if (!customer) throw new NotFound();
  return view(customer);
}

export async function updateCustomer(merchantId: string, customerId: string, changes: CustomerChanges) {
  const customer = await updateRecord(merchantId, customerId, changes);
  if (!customer) throw new NotFound();
  return view(customer);
}

export async function listCustomers(merchantId: string, page: PageQuery) {
  const result = await listRecords(merchantId, page);
  return { object: 'list' as const, data: result.data.map(view), has_more: result.has_more };
}
