// Draws public/icon.svg into the PNG app icons and favicon.ico (run after changing the SVG: node scripts/make-icons.mjs).
import fs from "node:fs";
import { chromium } from "@playwright/test";

const svg = fs.readFileSync("public/icon.svg", "utf8");
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: ["--no-sandbox", "--disable-gpu"] });
const page = await browser.newPage();

async function png(size, background = "transparent") {
  await page.setViewportSize({ width: size, height: size });
  await page.setContent(`<body style="margin:0;background:${background}">${svg.replace("<svg ", `<svg width="${size}" height="${size}" `)}</body>`);
  return page.screenshot({ omitBackground: background === "transparent", clip: { x: 0, y: 0, width: size, height: size } });
}

fs.writeFileSync("public/icon-192.png", await png(192));
fs.writeFileSync("public/icon-512.png", await png(512));
fs.writeFileSync("public/apple-touch-icon.png", await png(180, "#0f172a"));

// An .ico is a directory of images; modern browsers read PNG entries.
const images = [await png(16), await png(32), await png(48)];
const header = Buffer.alloc(6 + 16 * images.length);
header.writeUInt16LE(0, 0);
header.writeUInt16LE(1, 2);
header.writeUInt16LE(images.length, 4);
let offset = header.length;
images.forEach((image, i) => {
  const size = [16, 32, 48][i];
  const entry = 6 + 16 * i;
  header.writeUInt8(size, entry);
  header.writeUInt8(size, entry + 1);
  header.writeUInt16LE(1, entry + 4);
  header.writeUInt16LE(32, entry + 6);
  header.writeUInt32LE(image.length, entry + 8);
  header.writeUInt32LE(offset, entry + 12);
  offset += image.length;
});
fs.writeFileSync("public/favicon.ico", Buffer.concat([header, ...images]));
await browser.close();
