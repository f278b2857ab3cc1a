/** An object's details in the panel: size, type, ETag, last modified, version, metadata. */
import React from 'react';

import { humanSize } from './sizes';
import { IObjectInfo } from './types';

export function ObjectDetails({ object }: { object: IObjectInfo }): JSX.Element {
  const facts: [string, string | null][] = [
    ['Size', `${humanSize(object.size)} (${object.size.toLocaleString('en')} bytes)`],
    ['Type', object.contentType],
    ['Last modified', object.lastModified],
    ['ETag', object.etag],
    ['Version', object.versionId],
    ['Storage class', object.storageClass]
  ];
  const metadata = Object.entries(object.metadata ?? {}).sort();
  return (
    <>
      <dl className="jp-AIStorLab-facts" aria-label="Object">
        {facts
          .filter(([, value]) => value)
          .map(([name, value]) => (
            <React.Fragment key={name}>
              <dt>{name}</dt>
              <dd data-fact={name}>{value}</dd>
            </React.Fragment>
          ))}
      </dl>
      <section className="jp-AIStorLab-section">
        <h3>Metadata</h3>
        {metadata.length ? (
          <dl className="jp-AIStorLab-properties" aria-label="Metadata">
            {metadata.map(([key, value]) => (
              <React.Fragment key={key}>
                <dt>{key}</dt>
                <dd>{value}</dd>
              </React.Fragment>
            ))}
          </dl>
        ) : (
          <p className="jp-AIStorLab-note">(none)</p>
        )}
      </section>
    </>
  );
}
