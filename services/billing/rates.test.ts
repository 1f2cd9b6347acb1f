// Rates: the published defaults, a CREDIT_RATES override, and a bad override refused loudly.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATES, loadRates, OPERATIONS, RatesConfigError } from './rates.js';

describe('credit rates', () => {
  it('defaults to the published rates', () => {
    expect(loadRates({})).toEqual({ search: 1, enrichment_self: 1, enrichment_quick: 1, enrichment_standard: 3, enrichment_deep: 8 });
    expect(loadRates({ CREDIT_RATES: '' })).toEqual(DEFAULT_RATES);
    expect(OPERATIONS).toEqual(['search', 'enrichment_self', 'enrichment_quick', 'enrichment_standard', 'enrichment_deep']);
  });

  it('CREDIT_RATES overrides some rates and keeps the defaults of the others', () => {
    expect(loadRates({ CREDIT_RATES: '{"search": 2, "enrichment_deep": 10}' })).toEqual({ ...DEFAULT_RATES, search: 2, enrichment_deep: 10 });
  });

  it.each([
    ['not JSON', '{search: 2}', /not valid JSON/],
    ['an unknown operation (a typo)', '{"serach": 2}', /unknown operation\(s\) serach/],
    ['a fractional rate', '{"search": 1.5}', /search/],
    ['a zero rate', '{"search": 0}', /search/],
    ['a negative rate', '{"enrichment_deep": -8}', /enrichment_deep/],
    ['a string rate', '{"search": "2"}', /search/],
    ['an array', '[1, 2]', /invalid CREDIT_RATES/],
  ])('refuses %s', (_what, value, message) => {
    expect(() => loadRates({ CREDIT_RATES: value })).toThrow(RatesConfigError);
    expect(() => loadRates({ CREDIT_RATES: value })).toThrow(message);
  });

  it('lists every problem at once', () => {
    try {
      loadRates({ CREDIT_RATES: '{"search": 0, "enrichment_deep": 1.5}' });
      expect.unreachable();
    } catch (error) {
      expect((error as RatesConfigError).problems).toHaveLength(2);
    }
  });
});
