import { describe, expect, it } from 'vitest';
import { cappedRecovery, recoveryAfter, treatmentOf } from '../../shared/domain/recovery-policy.ts';

/** The retry policy by decline code (docs/api.md "Subscription recovery"): a period first tried on 2027-03-15. */
const FIRST_TRY = '2027-03-15';

describe('the retry policy', () => {
  it.each(['insufficient_funds', 'processing_error', 'issuer_not_available', 'try_again_later', 'generic_decline'])(
    'retries the soft %s on days 1, 3, 5 and 7 after the first try, then gives up',
    (code) => {
      // Act: each run on the day the one before scheduled
      const runs = [FIRST_TRY];
      for (let run = 0; run < 6; run++) {
        const next = recoveryAfter(code, FIRST_TRY, runs.at(-1)!, run).retry_at;
        if (!next) break;
        runs.push(next);
      }
      // Assess
      expect(runs).toEqual([FIRST_TRY, '2027-03-16', '2027-03-18', '2027-03-20', '2027-03-22']);
      expect(recoveryAfter(code, FIRST_TRY, '2027-03-22', 4)).toMatchObject({ retry_at: null, reason: expect.stringContaining('none is left') });
      expect(recoveryAfter(code, FIRST_TRY, FIRST_TRY, 0).reason).toBe(`${code} is a soft decline: retried on day 1 after the first try`);
    },
  );

  it('schedules a late run on the next day of the schedule still ahead', () => {
    expect(recoveryAfter('insufficient_funds', FIRST_TRY, '2027-03-19', 2).retry_at).toBe('2027-03-20');
  });

  it.each(['stolen_card', 'lost_card', 'pickup_card', 'fraudulent', 'invalid_account', 'card_not_supported', 'incorrect_number'])(
    'never retries the hard %s',
    (code) => {
      expect(treatmentOf(code)).toBe('hard');
      expect(recoveryAfter(code, FIRST_TRY, FIRST_TRY, 0)).toEqual({
        treatment: 'hard',
        retry_at: null,
        reason: `${code} is a hard decline: the issuer will not approve this card again, so it is not retried`,
      });
    },
  );

  it('makes expired_card wait for an updated card, and authentication_required for the customer', () => {
    expect(recoveryAfter('expired_card', FIRST_TRY, FIRST_TRY, 0)).toMatchObject({
      treatment: 'wait_for_card',
      retry_at: null,
      reason: expect.stringContaining('waiting for an updated card'),
    });
    expect(recoveryAfter('authentication_required', FIRST_TRY, FIRST_TRY, 0)).toMatchObject({
      treatment: 'wait_for_shopper',
      retry_at: null,
      reason: expect.stringContaining('the customer to authenticate'),
    });
  });

  it('treats a code in no row as soft, and says so', () => {
    expect(recoveryAfter('do_not_honor', FIRST_TRY, FIRST_TRY, 0)).toEqual({
      treatment: 'soft',
      retry_at: '2027-03-16',
      reason: 'do_not_honor is not in the retry policy, so it is treated as a soft decline: retried on day 1 after the first try',
    });
  });

  it('puts a capped run off to the date the cap allows, whatever the code', () => {
    expect(cappedRecovery('2027-04-14', 2)).toMatchObject({
      treatment: 'capped',
      retry_at: '2027-04-14',
      reason: expect.stringContaining('nothing was sent'),
    });
    expect(cappedRecovery('2027-04-14', 19)).toMatchObject({ retry_at: null, reason: expect.stringContaining('not tried again') });
  });
});
