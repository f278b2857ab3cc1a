/**
 * The panel's search box: asks the service (`search?q=`) once the user pauses typing, and keeps
 * only the answer to the latest query (an older one may arrive after it).
 */
import { plainMessage } from '../errors';
import { search } from './api';
import { ISearchAnswer } from './types';

export const SEARCH_DELAY_MS = 300;

export class Searcher {
  query = '';
  answer: ISearchAnswer | null = null;
  loading = false;
  error: string | null = null;

  constructor(private readonly changed: () => void) {}

  /** True while the box holds a query: the panel shows results instead of the tree. */
  get active(): boolean {
    return !!this.query.trim();
  }

  setQuery(text: string): void {
    this.query = text;
    window.clearTimeout(this.timer);
    const wanted = text.trim();
    this.answer = null;
    this.error = null;
    this.loading = !!wanted;
    this.changed();
    if (wanted) {
      this.timer = window.setTimeout(() => void this.ask(wanted), SEARCH_DELAY_MS);
    }
  }

  private async ask(wanted: string): Promise<void> {
    try {
      const answer = await search(wanted);
      if (this.query.trim() === wanted) {
        this.answer = answer;
      }
    } catch (error) {
      if (this.query.trim() === wanted) {
        this.error = plainMessage(error);
      }
    } finally {
      if (this.query.trim() === wanted) {
        this.loading = false;
        this.changed();
      }
    }
  }

  private timer = 0;
}
