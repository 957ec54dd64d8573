// Opens an openloop page (report.html, or the live page of --metrics-listen)
// in Debian's chromium, headless, through playwright-core, and prints what a
// reader would see as JSON on stdout: the verdict, the headline, every
// chart (its axis labels, its series and their points), every table's
// cells, and anything that went wrong (console errors, uncaught exceptions,
// requests that left the file). The tests compare it with the result files.
//
//   node tools/browser-check/check-page.mjs PAGE [--screenshot FILE.png]
//        [--watch SECONDS]   (a live page: also its state once a second)
//
// PAGE is a file path or an http://127.0.0.1 URL. Exit 2 when chromium or
// playwright-core is missing (tools/deps --tests installs both).

import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
let page_arg = null, screenshot = null, watch = 0;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === "--screenshot") screenshot = args[++i];
  else if (args[i] === "--watch") watch = Number(args[++i]);
  else page_arg = args[i];
}
if (!page_arg) {
  console.error("usage: check-page.mjs PAGE [--screenshot FILE.png] [--watch SECONDS]");
  process.exit(2);
}
const chromium_path = process.env.OPENLOOP_CHROMIUM || "/usr/bin/chromium";
let playwright;
try {
  playwright = await import("playwright-core");
} catch (e) {
  console.error("check-page: playwright-core is not installed in tools/browser-check: run tools/deps --tests");
  process.exit(2);
}
if (!existsSync(chromium_path)) {
  console.error(`check-page: no chromium at ${chromium_path}: run tools/deps --tests`);
  process.exit(2);
}

const url = /^https?:/.test(page_arg) ? page_arg : pathToFileURL(resolve(page_arg)).href;
const origin = /^https?:/.test(url) ? new URL(url).origin : null;
const browser = await playwright.chromium.launch({ executablePath: chromium_path, args: ["--no-sandbox"] });
const out = { url, console_errors: [], page_errors: [], outside_requests: [], states: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on("console", (m) => { if (m.type() === "error") out.console_errors.push(m.text()); });
  page.on("pageerror", (e) => out.page_errors.push(String(e)));
  // A report is one file; a live page talks to its own server only.
  page.on("request", (r) => {
    const u = r.url();
    if (u.startsWith("data:") || u === url) return;
    if (origin !== null && u.startsWith(origin + "/")) return;
    out.outside_requests.push(u);
  });
  await page.goto(url, { waitUntil: "load", timeout: 30000 });

  const read = () => page.evaluate(() => {
    const text = (el) => (el ? el.textContent.trim() : null);
    const charts = [...document.querySelectorAll("figure.chart")].map((f) => ({
      id: f.dataset.chart,
      caption: text(f.querySelector("figcaption")),
      x_label: text(f.querySelector(".axis-label.x")),
      y_label: text(f.querySelector(".axis-label.y")),
      no_data: f.querySelector(".no-data") !== null,
      rules: [...f.querySelectorAll(".rule-label")].map((r) => r.textContent),
      series: [...f.querySelectorAll("g.series")].map((s) => ({
        name: s.dataset.series,
        points: Number(s.dataset.points),
        drawn: s.querySelectorAll("circle").length,
      })),
    }));
    const tables = {};
    for (const t of document.querySelectorAll("table[data-table]")) {
      tables[t.dataset.table] = [...t.querySelectorAll("tbody tr")].map((r) =>
        [...r.querySelectorAll("td")].map((c) => c.textContent));
    }
    const verdict = document.querySelector("#verdict");
    return {
      kind: document.body.dataset.kind || null,
      title: document.title,
      verdict: verdict ? { word: verdict.dataset.verdict, good: verdict.classList.contains("good"),
                           reasons: [...verdict.querySelectorAll("li")].map((l) => l.textContent) } : null,
      headline: text(document.querySelector("#headline")),
      paragraphs: Object.fromEntries([...document.querySelectorAll("p[id]")].map((p) => [p.id, p.textContent])),
      status: text(document.querySelector("#status")),
      charts,
      tables,
    };
  });

  // A live page draws its charts when its first fetch of /live.json answers,
  // which can come after the load event: read it once it has drawn, as a
  // reader looking at it would.
  if (watch > 0) await page.waitForSelector("figure.chart", { timeout: 10000 });
  Object.assign(out, await read());
  for (let s = 0; s < watch; ++s) {
    await page.waitForTimeout(1000);
    const now = await read();
    out.states.push({ status: now.status, points: now.charts.map((c) => c.series.reduce((n, x) => n + x.points, 0)) });
  }
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
