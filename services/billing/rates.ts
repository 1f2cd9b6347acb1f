// Credit rates: how many credits one unit of each billable operation costs. The defaults are the
// published ones (docs/API-DECISIONS.md); the optional CREDIT_RATES variable (a JSON object
// operation → whole credits per unit) overrides some or all of them. A bad value stops the billing
// service at start-up with a message naming every problem — a mispriced ledger is worse than no start.
import { z } from 'zod';

/** The billable operations and their default rates, in the order ListRates reports them. */
export const DEFAULT_RATES = {
  search: 1,
  enrichment_self: 1,
  enrichment_quick: 1,
  enrichment_standard: 3,
  enrichment_deep: 8,
} as const;

export type Operation = keyof typeof DEFAULT_RATES;
export const OPERATIONS = Object.keys(DEFAULT_RATES) as Operation[];

export type Rates = Readonly<Record<Operation, number>>;

export function isOperation(value: string): value is Operation {
  return Object.hasOwn(DEFAULT_RATES, value);
}

// Every key must be a known operation (a typo would otherwise silently keep the default), every
// value a whole number of credits of at least 1 (a charge always moves the balance).
const overrides = z
  .object(Object.fromEntries(OPERATIONS.map((op) => [op, z.number().int().min(1).max(1_000_000).optional()])) as Record<
    Operation,
    z.ZodOptional<z.ZodNumber>
  >)
  .strict();

export class RatesConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid CREDIT_RATES:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'RatesConfigError';
  }
}

/** The rates in force: the defaults, overridden by CREDIT_RATES when it is set (empty counts as unset). */
export function loadRates(env: NodeJS.ProcessEnv = process.env): Rates {
  const raw = env.CREDIT_RATES;
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_RATES };
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new RatesConfigError([`not valid JSON (${error instanceof Error ? error.message : String(error)})`]);
  }
  const parsed = overrides.safeParse(json);
  if (!parsed.success) {
    throw new RatesConfigError(
      parsed.error.issues.map((i) => {
        const where = i.path.join('.') || '(value)';
        if (i.code === 'unrecognized_keys') return `${where}: unknown operation(s) ${i.keys.join(', ')}; known: ${OPERATIONS.join(', ')}`;
        return `${where}: ${i.message}`;
      }),
    );
  }
  const rates = { ...DEFAULT_RATES } as Record<Operation, number>;
  for (const op of OPERATIONS) {
    const value = parsed.data[op];
    if (value !== undefined) rates[op] = value;
  }
  return rates;
}
