/** The panel API's search over everything the service holds. */
import { request, segment } from '../api';
import { ISearchAnswer } from './types';

export function search(query: string, limit = 50): Promise<ISearchAnswer> {
  return request(`search?q=${segment(query)}&limit=${limit}`);
}
