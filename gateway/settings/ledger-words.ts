// Ledger operations in words on the credits screens: the ledger keeps short codes (`search`,
// `enrichment_quick`), a person reads what was charged or credited. An operation without words yet
// shows its code, so a new one is never hidden.
const OPERATION_WORDS: Record<string, string> = {
  search: 'Search',
  enrichment_quick: 'Quick enrichment of a profile',
  enrichment_deep: 'Deep enrichment of a profile',
  enrichment_self: 'Enrichment of your own profile',
  credit: 'Credits added',
  seed: 'Starting balance',
  adjustment: 'Balance adjusted by an operator',
};

/** The operation in words, or null when it has none (the caller shows the code). */
export function operationWords(operation: string): string | null {
  return Object.hasOwn(OPERATION_WORDS, operation) ? OPERATION_WORDS[operation]! : null;
}
