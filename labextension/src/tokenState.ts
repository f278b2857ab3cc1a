/** Whether a share's token still works, as the panel shows it: valid, expiring soon, expired. */
import { IToken, TokenState } from './types';

/** "Expiring soon": within this many days, the same window the service uses. */
const EXPIRING_DAYS = 3;

/** The service's own answer when it gives one; computed from the expiration time otherwise. */
export function tokenState(token: IToken, now: number = Date.now()): TokenState {
  if (token.state) {
    return token.state;
  }
  if (!token.expirationTime) {
    return 'valid';
  }
  const left = Date.parse(token.expirationTime) - now;
  if (left <= 0) {
    return 'expired';
  }
  return left <= EXPIRING_DAYS * 24 * 3600 * 1000 ? 'expiring' : 'valid';
}

export const TOKEN_STATE_LABELS: Record<TokenState, string> = {
  valid: 'valid',
  expiring: 'expires soon',
  expired: 'expired'
};
