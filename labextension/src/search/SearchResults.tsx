/** What the search box found, in place of the tree: each result's kind, name and place; choosing
 * one shows it in the tree. */
import React from 'react';

import { PanelController } from '../controller';
import { resultName, resultPlace, SEARCH_KIND_LABELS, treePath } from './reveal';
import { ISearchResult } from './types';

function Result(props: { result: ISearchResult; controller: PanelController }): JSX.Element {
  const { result, controller } = props;
  const place = resultPlace(result);
  const choose = () => {
    controller.search.setQuery('');
    void controller.reveal(treePath(result));
  };
  return (
    <li>
      <button
        className="jp-AIStorLab-result"
        data-kind={result.kind}
        onClick={choose}
        title={`Show ${result.label} in the tree`}
        aria-label={`${SEARCH_KIND_LABELS[result.kind]} ${result.label}: show it in the tree`}
      >
        <span className="jp-AIStorLab-badge">{SEARCH_KIND_LABELS[result.kind]}</span>
        <span className="jp-AIStorLab-label">{resultName(result)}</span>
        {place && <small className="jp-AIStorLab-source">{place}</small>}
      </button>
    </li>
  );
}

export function SearchResults({ controller }: { controller: PanelController }): JSX.Element {
  const { query, answer, loading, error } = controller.search;
  return (
    <div className="jp-AIStorLab-search" role="region" aria-label="Search results">
      {loading && <p className="jp-AIStorLab-note">Searching…</p>}
      {error && <p className="jp-AIStorLab-error">{error}</p>}
      {answer && !answer.results.length && (
        <p className="jp-AIStorLab-note">
          Nothing matches “{query.trim()}”{answer.complete ? '.' : ' in what was searched (the search stopped early).'}
        </p>
      )}
      {answer && answer.results.length > 0 && (
        <ul className="jp-AIStorLab-results" aria-label={`${answer.results.length} results`}>
          {answer.results.map(result => (
            <Result key={JSON.stringify(result)} result={result} controller={controller} />
          ))}
        </ul>
      )}
      {answer && !answer.complete && answer.results.length > 0 && (
        <p className="jp-AIStorLab-note">More may match: the search stopped early. Type more of the name.</p>
      )}
    </div>
  );
}
