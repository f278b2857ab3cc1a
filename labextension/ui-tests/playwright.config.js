/**
 * Galata UI tests: JupyterLab with this extension and a real aistor-lab service (started by the
 * server extension), in a temporary notebook and data directory, driven by Debian's Chromium.
 *
 * AISTOR_UI_PORT: JupyterLab's port (default: a free one). CHROMIUM: the browser (default: the
 * `chromium` on PATH). `jupyter` must be on PATH (the Makefile puts the virtualenv's first).
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');

// Playwright evaluates this file in its runner and again in each worker: the values chosen the
// first time travel to the workers through the environment.
function freePort() {
  const script = "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})";
  return execFileSync(process.execPath, ['-e', script]).toString().trim();
}
process.env.AISTOR_UI_PORT ??= freePort();
process.env.AISTOR_UI_ROOT ??= fs.mkdtempSync(path.join(os.tmpdir(), 'aistor-lab-ui-'));

function chromium() {
  if (process.env.CHROMIUM) {
    return process.env.CHROMIUM;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v chromium']).toString().trim();
  } catch {
    throw new Error('Chromium is missing: apt-get install -y chromium (or set CHROMIUM)');
  }
}

const url = `http://127.0.0.1:${process.env.AISTOR_UI_PORT}`;

module.exports = {
  ...baseConfig,
  testDir: 'tests',
  outputDir: 'test-results',
  reporter: [['list'], ['html', { open: 'never', outputFolder: 'playwright-report' }]],
  timeout: 240000,
  expect: { timeout: 30000 },
  retries: 0,
  workers: 1,
  use: {
    ...baseConfig.use,
    baseURL: url,
    actionTimeout: 30000,
    viewport: { width: 1280, height: 1024 },
    // Playwright's own browser download is not available here; videos would need its ffmpeg.
    launchOptions: { executablePath: chromium(), args: ['--no-sandbox'] },
    video: 'off',
    trace: 'retain-on-failure',
    acceptDownloads: true
  },
  webServer: {
    command: 'jupyter lab --config jupyter_server_test_config.py',
    cwd: __dirname,
    url: `${url}/lab`,
    timeout: 180000,
    reuseExistingServer: false,
    // Jupyter then stops its kernels and the service, and removes the temporary root (the config).
    gracefulShutdown: { signal: 'SIGTERM', timeout: 30000 },
    stdout: 'pipe',
    stderr: 'pipe'
  }
};
