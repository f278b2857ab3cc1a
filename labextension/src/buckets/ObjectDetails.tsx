/** An object's details in the panel: size, type, ETag, last modified, version, metadata. */
import React from 'react';

import { FactList, sortedEntries } from '../components/records';
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
  const metadata = sortedEntries(object.metadata ?? {});
  return (
    <>
      <FactList className="jp-AIStorLab-facts" label="Object" facts={facts.filter(([, value]) => value)} named />
      <section className="jp-AIStorLab-section">
        <h3>Metadata</h3>
        {metadata.length ? (
          <FactList className="jp-AIStorLab-properties" label="Metadata" facts={metadata} />
        ) : (
          <p className="jp-AIStorLab-note">(none)</p>
        )}
      </section>
    </>
  );
}
