import * as v from 'valibot';
import { idPattern } from '../model/ids.ts';
import { Email, listQuery, Metadata, Name, Phone } from './common.ts';

const CustomerName = v.pipe(Name, v.examples(['Jane Doe']));

export const CreateCustomerBody = v.object({
  email: Email,
  name: v.optional(CustomerName),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
  /** test mode: the test clock whose time the customer's billing follows */
  test_clock: v.optional(
    v.pipe(v.string(), v.regex(idPattern('testClock'), 'a test clock id'), v.description('test mode: bind the customer to this test clock')),
  ),
});

export const UpdateCustomerBody = v.object({
  default_payment_method: v.optional(
    v.pipe(v.string(), v.minLength(1), v.maxLength(255), v.description('one of the payment methods attached to the customer')),
  ),
  email: v.optional(Email),
  name: v.optional(CustomerName),
  phone: v.optional(Phone),
  metadata: v.optional(Metadata),
});

export const ListCustomersQuery = listQuery('customer');
