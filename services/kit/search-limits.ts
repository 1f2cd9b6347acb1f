// The limits of a search request and its polls, declared once: the edge's contract (its schema and
// the OpenAPI document) and the search service (which re-checks a request from any caller, direct
// gRPC included) both read them here.

/** A query holds 1 to this many characters (after trimming). */
export const SEARCH_QUERY_MAX = 1000;
/** Matches of a search when the request names no limit, and the most it is served (a larger limit is clamped). */
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 50;
/** How long a start may wait for the result when the request does not say, and the longest it may ask. */
export const WAIT_SECONDS_DEFAULT = 20;
export const WAIT_SECONDS_MAX = 25;
/** What an unfinished search tells its poller to wait before polling again. */
export const POLL_AFTER_SECONDS = 2;
