import { ApiError, errorFromResponse, plainMessage } from '../src/errors';

describe('error messages', () => {
  it('takes the message of the extension, or of Jupyter', () => {
    expect(errorFromResponse(409, { error: "warehouse 'x' already exists" }).message).toBe("warehouse 'x' already exists");
    expect(errorFromResponse(400, { message: 'expected {"argv": [...]}' }).message).toBe('expected {"argv": [...]}');
    expect(errorFromResponse(500, '<html>').message).toBe('HTTP 500');
  });

  it('says in plain words whose fault it was', () => {
    expect(plainMessage(errorFromResponse(409, { error: "warehouse 'x' already exists" }))).toBe(
      "Warehouse 'x' already exists"
    );
    expect(plainMessage(new ApiError(0, 'TypeError: Failed to fetch'))).toBe(
      'Cannot reach the Jupyter server. Is it still running?'
    );
    expect(plainMessage(new ApiError(403, 'Forbidden'))).toMatch(/log in to JupyterLab/);
    expect(plainMessage(errorFromResponse(503, { error: 'cannot reach the AIStor service at http://x: is it running?' }))).toBe(
      'The AIStor service is not running. Cannot reach the AIStor service at http://x: is it running?'
    );
    expect(plainMessage(errorFromResponse(502, { error: 'boom' }))).toBe('The AIStor service failed: boom');
    expect(plainMessage(new Error('plain'))).toBe('Plain');
  });

  it('adds the usage to a bad command line', () => {
    const error = errorFromResponse(400, { error: 'the following arguments are required: NAME', usage: 'usage: aistor warehouse create NAME\n' });
    expect(plainMessage(error)).toBe('The following arguments are required: NAME\nusage: aistor warehouse create NAME');
  });
});
