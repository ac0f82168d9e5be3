import * as v from 'valibot';
import { Email, listQuery, Metadata, Name, Phone } from './common.ts';

const CustomerName = v.pipe(Name, v.examples(['Jane Doe']));

export const CreateCustomerBody = v.object({
  email: Email,
  name: v.optional(CustomerName),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
});

export const UpdateCustomerBody = v.object({
  email: v.optional(Email),
  name: v.optional(CustomerName),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
});

export const ListCustomersQuery = listQuery('customer');
