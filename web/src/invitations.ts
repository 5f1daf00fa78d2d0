/** The invitation links a host was given, kept on the host's device: the server shows a code
 * once (it keeps only its hash), so the page that was shown it keeps it, to show it again at
 * the waiting table. A link is a credential to one seat, kept like the account token
 * (localStorage, under the page's Content-Security-Policy), and forgotten once the seat is
 * taken, re-offered or withdrawn. */

const key = (game: string) => `parlour.invitations.${game}`;

/** The links known for a game's seats, by seat. */
export function invitationLinks(game: string): Record<number, string> {
  try {
    return JSON.parse(localStorage.getItem(key(game)) ?? "{}") as Record<number, string>;
  } catch {
    return {};
  }
}

/** Keeps (or, with null, forgets) the link of one seat. */
export function keepInvitationLink(game: string, seat: number, link: string | null): void {
  const links = invitationLinks(game);
  if (link) links[seat] = link;
  else delete links[seat];
  if (Object.keys(links).length === 0) localStorage.removeItem(key(game));
  else localStorage.setItem(key(game), JSON.stringify(links));
}
