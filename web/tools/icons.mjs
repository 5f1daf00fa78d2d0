// Renders web/public/icon.svg to the PNG icons the manifest names beside it (Android installs a
// web app only with a PNG of 192 and 512 pixels, and masks a "maskable" one to its own shape,
// so that one is drawn full-bleed with the cards inside the central safe zone). Run it after
// changing the SVG, from web/: `node tools/icons.mjs`; the PNGs are committed, since the binary
// embeds them and a fresh machine builds without Node.
import { readFile, writeFile } from "node:fs/promises";
import { chromium } from "playwright-core";

const svg = await readFile(new URL("../public/icon.svg", import.meta.url), "utf8");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage({ deviceScaleFactor: 1 });
const data = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;

async function render(file, size, body) {
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(`<html><body style="margin:0">${body}</body></html>`);
  await page.waitForLoadState("load");
  await writeFile(new URL(`../public/${file}`, import.meta.url), await page.screenshot({ omitBackground: true }));
}

for (const size of [192, 512]) {
  await render(`icon-${size}.png`, size, `<img src="${data}" width="${size}" height="${size}">`);
}
// Maskable: the icon's own green as a square, the drawing at 80 % in the middle.
await render("icon-maskable-512.png", 512, `<div style="width:512px;height:512px;background:#1f5135;display:grid;place-items:center"><img src="${data}" width="410" height="410"></div>`);
await browser.close();
