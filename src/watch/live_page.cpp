#include "openloop/watch/live_page.hpp"

namespace openloop {

namespace {

constexpr std::string_view page = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>openloop: live</title><link rel="icon" href="data:,">
<style>
:root{color-scheme:light dark;--fg:#1b1b1b;--bg:#fff;--muted:#5b5b5b;--line:#d0d0d0}
@media (prefers-color-scheme:dark){:root{--fg:#e8e8e8;--bg:#15171a;--muted:#a8a8a8;--line:#3a3d42}}
body{font:15px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);max-width:1180px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 8px}#status{font-size:17px;margin:8px 0 16px}#window{color:var(--muted)}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(480px,1fr));gap:16px}
figure.chart{margin:0;border:1px solid var(--line);border-radius:6px;padding:8px}
figure.chart svg{width:100%;height:auto;display:block}figcaption{color:var(--muted);font-size:13px;text-align:center}
</style></head>
<body data-kind="live">
<h1>openloop: live</h1>
<p id="status">waiting for the first second…</p>
<p id="window"></p>
<div class="charts" id="charts"></div>
<script>
"use strict";
// Okabe–Ito, as report.html draws.
const palette = ["#0072B2", "#E69F00", "#009E73"];
const specs = [
  {id: "rates", title: "Requests per second: offered, completed and failed", y: "requests per second",
   series: [["offered", "offered"], ["completed", "completed"], ["failed", "failed"]]},
  {id: "in_flight", title: "Requests in flight at each second's end", y: "requests", series: [["in flight", "in_flight"]]},
  {id: "ttft_over_time", title: "TTFT of the requests that ended in each second", y: "TTFT (ms)",
   series: [["TTFT p50", "ttft_p50_ms"], ["TTFT p99", "ttft_p99_ms"]]},
];
const NS = "http://www.w3.org/2000/svg";
const W = 680, H = 320, L = 72, R = 660, T = 44, B = 268;
function el(name, attrs, text) {
  const e = document.createElementNS(NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function step(span) {
  const raw = span / 5, m = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const f of [1, 2, 5]) if (raw <= f * m * 1.0000001) return f * m;
  return 10 * m;
}
function draw(spec, d) {
  const t = d.series.t_s;
  let xmax = 1, ymax = 1;
  for (const x of t) xmax = Math.max(xmax, x + 1);
  const series = spec.series.map(([name, key]) => {
    const pts = [];
    d.series[key].forEach((v, i) => { if (v !== null) { pts.push([t[i], v]); ymax = Math.max(ymax, v); } });
    return {name, pts};
  });
  const xs = step(xmax), ys = step(ymax);
  xmax = Math.ceil(xmax / xs) * xs; ymax = Math.ceil(ymax / ys) * ys;
  const px = (x) => L + (x / xmax) * (R - L), py = (y) => B - (y / ymax) * (B - T);
  const svg = el("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "font-size": "12", fill: "currentColor"});
  svg.append(el("rect", {x: L, y: T, width: R - L, height: B - T, fill: "none", stroke: "currentColor", "stroke-opacity": 0.5}));
  for (let x = 0; x <= xmax + 1e-9; x += xs) {
    svg.append(el("line", {x1: px(x), y1: T, x2: px(x), y2: B, stroke: "currentColor", "stroke-opacity": 0.12}));
    svg.append(el("text", {x: px(x), y: B + 16, "text-anchor": "middle", class: "tick x"}, String(+x.toFixed(3))));
  }
  for (let y = 0; y <= ymax + 1e-9; y += ys) {
    svg.append(el("line", {x1: L, y1: py(y), x2: R, y2: py(y), stroke: "currentColor", "stroke-opacity": 0.12}));
    svg.append(el("text", {x: L - 6, y: py(y) + 4, "text-anchor": "end", class: "tick y"}, String(+y.toFixed(3))));
  }
  svg.append(el("text", {x: (L + R) / 2, y: H - 8, "text-anchor": "middle", class: "axis-label x"}, "time (s)"));
  svg.append(el("text", {transform: `translate(16,${(T + B) / 2}) rotate(-90)`, "text-anchor": "middle",
                         class: "axis-label y"}, spec.y));
  let lx = L;
  series.forEach((s, i) => {
    const c = palette[i % palette.length];
    const g = el("g", {class: "series", "data-series": s.name, "data-points": s.pts.length, stroke: c, fill: c});
    if (s.pts.length)
      g.append(el("polyline", {fill: "none", "stroke-width": 2, points: s.pts.map(([x, y]) => `${px(x)},${py(y)}`).join(" ")}));
    svg.append(g);
    svg.append(el("line", {x1: lx, y1: 22, x2: lx + 18, y2: 22, stroke: c, "stroke-width": 3}));
    svg.append(el("text", {x: lx + 22, y: 26}, s.name));
    lx += 40 + 7 * s.name.length;
  });
  const fig = document.createElement("figure");
  fig.className = "chart";
  fig.dataset.chart = spec.id;
  fig.append(svg);
  const cap = document.createElement("figcaption");
  cap.textContent = spec.title;
  fig.append(cap);
  return fig;
}
function ms(v) { return v === null ? "–" : v.toFixed(v < 10 ? 2 : 0) + " ms"; }
function render(d) {
  if (!d.series) return;
  document.getElementById("status").textContent =
    `${d.label}: ${d.elapsed_s.toFixed(0)} s, ${d.completed} completed, ${d.failed} failed, ${d.in_flight} in flight` +
    (d.lost_events ? `, ${d.lost_events} events lost` : "");
  const w = d.window;
  document.getElementById("window").textContent = w ?
    `last ${w.seconds} s window: TTFT p50 ${ms(w.ttft_p50_ms)}, p99 ${ms(w.ttft_p99_ms)}, E2E p99 ${ms(w.e2e_p99_ms)}, ` +
    `achieved ${w.achieved_rate.toFixed(2)} of ${w.offered_rate.toFixed(2)} req/s offered` : "";
  document.getElementById("charts").replaceChildren(...specs.map((s) => draw(s, d)));
}
async function poll() {
  try {
    const r = await fetch("/live.json", {cache: "no-store"});
    render(await r.json());
  } catch (e) {
    document.getElementById("status").textContent = "openloop is not answering: the run has ended, or the network has";
  }
  setTimeout(poll, 1000);
}
poll();
</script>
</body></html>
)HTML";

}  // namespace

std::string_view live_page_html() { return page; }

}  // namespace openloop
