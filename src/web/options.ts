/**
 * The web server's security tunables, in one place. Each is a trade between an archivist's
 * convenience and what a stolen or guessed credential could do.
 */
export interface WebOptions {
  sessionLifetime: number;
  maxSessions: number;
  captureTicketLifetime: number;
  guesses: number;
  guessWindow: number;
  maxGuessClients: number;
}

export const WEB_OPTIONS: Readonly<WebOptions> = {
  /** How long a browser login lasts (ms). */
  sessionLifetime: 12 * 3_600_000,
  /** Sessions one server holds at most; past it the oldest is ended (a flood of logins cannot fill memory). */
  maxSessions: 10_000,
  /**
   * How long a capture ticket lasts (ms): the app mints one for each frame it embeds, so it only
   * has to outlive the page load and a reload of the frame; a leaked one opens one URL's
   * captures for this long.
   */
  captureTicketLifetime: 15 * 60_000,
  /**
   * Wrong tokens one client may present within `guessWindow` — by the login form or as a Bearer
   * token, on either port — before every presentation of it waits (429).
   */
  guesses: 5,
  /** The window over which wrong tokens are counted (ms); the wait after the limit is the rest of it. */
  guessWindow: 60_000,
  /** Clients whose failures are remembered at most (the oldest is forgotten first). */
  maxGuessClients: 10_000,
};
