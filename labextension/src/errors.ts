/**
 * Errors of the panel's API calls, and how they read to a user.
 *
 * The server extension answers `{"error": message}` (with `usage` for bad arguments); Jupyter's own
 * refusals answer `{"message": ...}`. Status 0 means the request never got an answer.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly usage?: string
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The error an answer with a failing status stands for. */
export function errorFromResponse(status: number, body: unknown): ApiError {
  const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const message = [fields.error, fields.message, fields.reason].find(
    value => typeof value === 'string' && value.trim()
  ) as string | undefined;
  const usage = typeof fields.usage === 'string' ? fields.usage : undefined;
  return new ApiError(status, message ?? `HTTP ${status}`, usage);
}

function sentence(text: string): string {
  const trimmed = text.trim();
  return trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
}

/** What went wrong, in plain words, for the panel and dialogs. */
export function plainMessage(error: unknown): string {
  if (!(error instanceof ApiError)) {
    return error instanceof Error ? sentence(error.message) : sentence(String(error));
  }
  switch (error.status) {
    case 0:
      return 'Cannot reach the Jupyter server. Is it still running?';
    case 401:
    case 403:
      return 'Jupyter refused the request: log in to JupyterLab again.';
    case 503:
      return `The AIStor service is not running. ${sentence(error.message)}`;
    case 502:
    case 500:
      return `The AIStor service failed: ${error.message}`;
    default:
      return error.usage
        ? `${sentence(error.message)}\n${error.usage.trim()}`
        : sentence(error.message);
  }
}
