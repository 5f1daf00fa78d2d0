/** The account token this browser keeps (localStorage), and the account it opens. */

const KEY = "parlour.token";

export const session = {
  token(): string | null {
    return localStorage.getItem(KEY);
  },
  signIn(token: string): void {
    localStorage.setItem(KEY, token);
  },
  signOut(): void {
    localStorage.removeItem(KEY);
  },
};
