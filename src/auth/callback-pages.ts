/**
 * The small HTML pages the loopback listener shows in the browser. Plain HTML, no scripts,
 * no external resources; every interpolated text is escaped.
 */

/** A page to show. */
export interface CallbackPage {
  status: number;
  html: string;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, lines: string[]): CallbackPage {
  const body = lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>svc: ${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em;color:#222}h1{font-size:1.4em}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
  return { status, html };
}

/** Logged in. */
export function successPage(who: string | undefined): CallbackPage {
  return page(200, 'Logged in', [
    who ? `svc is now logged in as ${who}.` : 'svc is now logged in.',
    'You can close this tab and return to the terminal.',
  ]);
}

/** The user declined, or the server redirected with another error. */
export function errorPage(error: string, description?: string): CallbackPage {
  if (error === 'access_denied') {
    return page(200, 'Access denied', [
      'You declined the request, so svc is not logged in.',
      'You can close this tab. Run `svc login` again to retry.',
    ]);
  }
  return page(400, 'Login failed', [
    `The server answered: ${error}${description ? ` (${description})` : ''}.`,
    'You can close this tab; the terminal says more.',
  ]);
}

/** The code could not be exchanged for tokens. */
export function exchangeFailedPage(): CallbackPage {
  return page(500, 'Login failed', [
    'svc received the authorization but could not get a token with it.',
    'You can close this tab; the terminal says what went wrong.',
  ]);
}

/** A redirect that is not for the login in progress (missing or wrong state). */
export function rejectedPage(reason: string): CallbackPage {
  return page(400, 'Not this login', [
    `svc refused this redirect: ${reason}.`,
    'It may come from an old login tab or from another site. svc keeps waiting for the login it started; use the link it printed.',
  ]);
}

/** A request after the flow finished. */
export function finishedPage(): CallbackPage {
  return page(410, 'Login already finished', ['This login has already finished. You can close this tab.']);
}

/** Anything but the callback path. */
export function notFoundPage(): CallbackPage {
  return page(404, 'Not found', ['svc is waiting for a login redirect on /callback only.']);
}
