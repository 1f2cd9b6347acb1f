// Types of the text libraries text.ts uses (neither ships its own).
declare module 'wink-porter2-stemmer' {
  /** The Porter2 (Snowball English) stem of one lower-case word. */
  export default function stem(word: string): string;
}
declare module 'stopword' {
  /** English stop words, lower case. */
  export const eng: string[];
}
