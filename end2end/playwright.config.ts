import { defineConfig, devices } from '@playwright/test';

// Debian's chromium; Playwright's own browser download is never used.
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const port = process.env.E2E_PORT ?? '3100';
const baseURL = process.env.BASE_URL ?? `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './tests',
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: { baseURL, trace: 'off' },
  projects: [
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: {
          executablePath,
          args: [
            '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
            '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync',
          ],
        },
      },
    },
  ],
  // Seeds two accounts into a throwaway SQLite database, then serves E2E_BIN (release by default).
  webServer: process.env.BASE_URL
    ? undefined
    : {
        command: 'sh end2end/serve.sh',
        cwd: '..',
        url: `${baseURL}/readyz`,
        reuseExistingServer: false,
        timeout: 120_000,
        stdout: 'pipe',
        env: { E2E_PORT: port, E2E_DATA_DIR: process.env.E2E_DATA_DIR ?? '', E2E_BIN: process.env.E2E_BIN ?? 'target/release/portcullis' },
      },
});
