// What one recorded exchange is made of: which operation, the request to send, the status it must
// answer with, and what to keep from the answer for the exchanges after it. An endpoint gets its
// examples from nothing but a recipe in recipes.ts.
export interface RecordedRequest {
  /** Path parameters by the names of the endpoint's path template. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /** Request headers the endpoint declares (lower-case names), e.g. idempotency-key. */
  headers?: Record<string, string>;
  body?: unknown;
}

/** Values kept from earlier answers (a search id, a run id), by name. */
export type Remembered = Record<string, string>;

// Response bodies are whatever the endpoint answered; recipes read the fields they know.
export type Body = any;

export interface Recipe {
  /** The endpoint, by its operationId in the endpoint table (gateway/core/contract/endpoints.ts). */
  operationId: string;
  /** Name of the example in the document, unique within the operation (snake_case). */
  name: string;
  summary: string;
  request(remembered: Remembered): RecordedRequest;
  /** The status the answer must have; anything else stops the capture. */
  status: number;
  /** Repeats the call (a poll) until this holds, so the example shows the final state. */
  until?(body: Body): boolean;
  /** Keeps values of the answer for later recipes. */
  remember?(body: Body, remembered: Remembered): void;
  /** Shortens an answer too long to show whole (the OpenAPI document itself). */
  abridge?(body: Body): unknown;
}
