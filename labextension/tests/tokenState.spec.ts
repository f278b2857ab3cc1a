import { TOKEN_STATE_LABELS, tokenState } from '../src/tokenState';
import { IToken } from '../src/types';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const token = (expirationTime: string | null, state?: IToken['state']): IToken => ({
  id: 'abc',
  share: 's',
  created: '2026-11-01T00:00:00Z',
  expirationTime,
  state
});

describe('token state', () => {
  it('is valid without an expiry or beyond three days', () => {
    expect(tokenState(token(null), NOW)).toBe('valid');
    expect(tokenState(token('2026-11-28T12:00:01Z'), NOW)).toBe('valid');
  });

  it('is expiring within three days and expired once past', () => {
    expect(tokenState(token('2026-11-28T12:00:00Z'), NOW)).toBe('expiring');
    expect(tokenState(token('2026-11-25T12:00:01Z'), NOW)).toBe('expiring');
    expect(tokenState(token('2026-11-25T12:00:00Z'), NOW)).toBe('expired');
    expect(tokenState(token('2025-01-01T00:00:00Z'), NOW)).toBe('expired');
  });

  it("takes the service's own answer first", () => {
    expect(tokenState(token('2030-01-01T00:00:00Z', 'expired'), NOW)).toBe('expired');
  });

  it('reads as words on the badge', () => {
    expect(TOKEN_STATE_LABELS[tokenState(token('2026-11-26T00:00:00Z'), NOW)]).toBe('expires soon');
  });
});
