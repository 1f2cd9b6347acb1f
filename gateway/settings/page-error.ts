// A refusal shown as a page: its HTTP status and a message a person can act on. The error handler
// (errors.ts) renders these, failures from the services (their code and message) and the CSRF
// plugin's refusals alike.
export class PageError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'PageError';
  }
}
