/** Saves a JSON document as a file through the browser's download (e.g. a recipient's profile.share). */
export function downloadJSON(fileName: string, document_: unknown): void {
  const blob = new Blob([JSON.stringify(document_, null, 2) + '\n'], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started by now; the object URL is only needed until then.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
