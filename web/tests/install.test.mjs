// The page installs as an app: Chromium itself, asked through the DevTools protocol, finds its
// manifest and names no reason it could not be installed (a missing PNG icon of 192 or 512
// pixels, a manifest it cannot read, no service worker, ...), and every icon the manifest
// names is served as the image it says.
import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { BASE, launch } from "./helpers.mjs";

let browser;
before(async () => (browser = await launch()));
after(async () => browser?.close());

test("Chromium finds the page installable, with every icon its manifest names", async () => {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`${BASE}/play`);
  await page.getByRole("heading", { name: "Play classic British card games" }).waitFor();
  const cdp = await page.context().newCDPSession(page);
  const { url, errors, data } = await cdp.send("Page.getAppManifest");
  assert.equal(url, `${BASE}/play/manifest.webmanifest`);
  assert.deepEqual(errors, []);
  const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
  // The test's browser contexts are incognito, which Chromium never installs from: that is
  // the one reason allowed, as it says nothing of the page.
  assert.deepEqual(
    installabilityErrors.filter((error) => error.errorId !== "in-incognito"),
    [],
  );
  for (const icon of JSON.parse(data).icons) {
    const response = await fetch(`${BASE}${icon.src}`);
    assert.equal(response.status, 200, icon.src);
    assert.equal(response.headers.get("content-type"), icon.type, icon.src);
    if (icon.type === "image/png") {
      const png = Buffer.from(await response.arrayBuffer());
      assert.equal(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`, icon.sizes, icon.src);
    }
  }
});
