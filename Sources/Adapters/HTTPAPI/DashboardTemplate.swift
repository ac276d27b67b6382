/// The dashboard's markup, style and script, with `{{NAME}}` holes that `DashboardPage` fills
/// (every value escaped for where it goes). Kept small: the whole page stays far under 64 KiB.
///
/// The script never parses a price as a number: it formats the decimal text by hand and scales
/// the chart with BigInt, as the server does with FixedDecimal. The font is the plain
/// `sans-serif`: Chromium on Debian spent about 45 ms looking up `system-ui` before the first
/// paint (scripts/bench 8c, 124 ms against 76 ms).
enum DashboardTemplate {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="color-scheme" content="light dark">
<link rel="icon" href="data:,">
<title>{{TITLE}}</title>
<style>
:root{--bg:#fafafa;--fg:#16181d;--muted:#5f6470;--card:#fff;--rule:#e3e4e8;--fresh:#13803b;--stale:#b25a00;--nodata:#c0262d;--line:#e8830c}
@media (prefers-color-scheme:dark){:root{--bg:#111317;--fg:#e9eaee;--muted:#9a9fab;--card:#1a1d23;--rule:#2c3039;--fresh:#4cd07d;--stale:#ffb347;--nodata:#ff6b6b;--line:#f7931a}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.45 sans-serif}
main{max-width:980px;margin:0 auto;padding:20px 16px 32px}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:4px 16px}
h1{margin:0;font-size:clamp(34px,8vw,64px);font-weight:650;letter-spacing:-.02em;font-variant-numeric:tabular-nums}
.pair{font-size:20px;color:var(--muted)}
.meta{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;margin:6px 0 18px;color:var(--muted)}
.state{font-weight:650;padding:1px 10px;border-radius:99px;border:2px solid currentColor}
.state.fresh{color:var(--fresh)}.state.stale{color:var(--stale)}.state.nodata{color:var(--nodata)}
.card{background:var(--card);border:1px solid var(--rule);border-radius:10px;padding:14px 16px;margin:12px 0}
.changes{display:flex;gap:12px;flex-wrap:wrap}
.change{flex:1 1 90px;background:var(--card);border:1px solid var(--rule);border-radius:10px;padding:8px 12px}
.change span{display:block;color:var(--muted);font-size:13px}
.change b{font-size:20px;font-variant-numeric:tabular-nums}
.change.up b{color:var(--fresh)}.change.down b{color:var(--nodata)}
.ranges{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:6px}
.ranges a{color:var(--fg);text-decoration:none;padding:2px 10px;border:1px solid var(--rule);border-radius:6px}
.ranges a.on{background:var(--fg);color:var(--bg)}
.ranges small{margin-left:auto;color:var(--muted)}
.currencies{display:flex;flex-wrap:wrap;gap:6px;margin-bottom:10px}
.currencies a{color:var(--fg);text-decoration:none;padding:2px 10px;border:1px solid var(--rule);border-radius:6px}
.currencies a.on{background:var(--fg);color:var(--bg)}
.plot{position:relative;margin:20px 0}
svg{width:100%;height:auto;display:block}
svg path{fill:none;stroke:var(--line);stroke-width:2.5;vector-effect:non-scaling-stroke;stroke-linejoin:round;stroke-linecap:round}
svg path.mark{stroke:var(--fg);stroke-width:8}
.extreme{position:absolute;font-size:12px;line-height:16px;color:var(--muted);white-space:nowrap;font-variant-numeric:tabular-nums}
.axis{display:flex;justify-content:space-between;color:var(--muted);font-size:12px;font-variant-numeric:tabular-nums}
table{width:100%;border-collapse:collapse;font-size:14px}
th,td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--rule);vertical-align:top}
th{color:var(--muted);font-weight:600}
td{overflow-wrap:anywhere}
td:last-child{max-width:320px}
@media (max-width:640px){
thead{display:none}
tr{display:block;padding:6px 0;border-bottom:1px solid var(--rule)}
td{display:flex;gap:12px;justify-content:space-between;border:0;padding:2px 0;max-width:none}
td:last-child{max-width:none}
td::before{content:attr(data-label);color:var(--muted);flex:none}
td>span{text-align:right;min-width:0}
}
tr.failing td:nth-child(2),tr.cooling-down td:nth-child(2){color:var(--stale)}
tr.ok td:nth-child(2){color:var(--fresh)}
.error{color:var(--nodata);margin:0 0 10px;word-break:break-word}
footer{margin-top:18px;color:var(--muted);font-size:13px}
footer a{color:inherit}
</style>
</head>
<body>
<main>
{{CURRENCIES}}<header>
<h1 id="price" data-price="{{EXACT}}">{{PRICE}}</h1>
<span class="pair" id="pair">{{PAIR}}</span>
</header>
<div class="meta">
<span class="state {{STATE}}" id="state">{{STATE_WORDS}}</span>
<span id="age">{{AGE}}</span>
<span id="source">{{SOURCE}}</span>
<span id="link"></span>
</div>
<div class="error" id="error">{{ERROR}}</div>
<section class="changes" aria-label="change">
{{CHANGE_1H}}
{{CHANGE_24H}}
{{CHANGE_7D}}
</section>
<section class="card" aria-label="chart">
<div class="ranges" id="ranges"><a href="/?{{HERE}}range=1h" data-range="1h">1h</a><a href="/?{{HERE}}range=24h" data-range="24h">24h</a><a href="/?{{HERE}}range=7d" data-range="7d">7d</a><small id="chartnote">{{CHART_NOTE}}</small></div>
<div class="plot">
<span class="extreme" id="high" style="{{HIGH_STYLE}}">{{HIGH}}</span>
<svg viewBox="0 0 1000 300" preserveAspectRatio="none" role="img" aria-label="price history"><path id="chart" data-range="{{CHART_RANGE}}" d="{{CHART}}"/><path class="mark" id="highmark" d="{{HIGH_MARK}}"/><path class="mark" id="lowmark" d="{{LOW_MARK}}"/></svg>
<span class="extreme" id="low" style="{{LOW_STYLE}}">{{LOW}}</span>
</div>
<div class="axis" id="axis"><span>{{AXIS_0}}</span><span>{{AXIS_1}}</span><span>{{AXIS_2}}</span></div>
</section>
<section class="card" aria-label="sources">
<table>
<thead><tr>{{COLUMNS}}</tr></thead>
<tbody id="sources">
{{SOURCES}}
</tbody>
</table>
<div id="stream">{{STREAM}}</div>
</section>
<footer>btcpriced {{VERSION}} · JSON: <a href="/api/v1/status">status</a>, <a href="/api/v1/sources">sources</a>, <a href="/api/v1/history">history</a>, <a href="/api/v1/events">events</a> · <a href="/metrics">metrics</a></footer>
</main>
<script type="application/json" id="config">{{CONFIG}}</script>
<script type="application/json" id="initial">{{STATUS}}</script>
<script nonce="{{NONCE}}">
"use strict";
// The page arrives rendered: the script starts after the first paint, not before it.
requestAnimationFrame(() => setTimeout(() => {
  const config = JSON.parse(document.getElementById("config").textContent);
  // The currency shown, when it is not the primary: every request names it.
  const ask = config.query ? "?" + config.query : "", and = config.query ? "&" + config.query : "";
  const $ = id => document.getElementById(id);
  // Decimal text, never a float: rounding and grouping work on the digits.
  const grouped = text => {
    let [whole, fraction = ""] = text.split(".");
    const negative = whole.startsWith("-");
    if (negative) whole = whole.slice(1);
    whole = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return (negative ? "-" : "") + whole + "." + fraction.padEnd(2, "0");
  };
  const roundedHalfUp = (text, places) => {
    const [whole, fraction = ""] = text.split(".");
    let units = BigInt(whole + fraction.slice(0, places).padEnd(places, "0"));
    if (fraction.charAt(places) >= "5") units += 1n;
    const digits = units.toString().padStart(places + 1, "0");
    return places ? digits.slice(0, -places) + "." + digits.slice(-places) : digits;
  };
  const money = (text, code) => {
    if (code !== config.currency) return grouped(text);
    const rounded = roundedHalfUp(text, config.minor);
    return config.symbol + (config.minor === 0 ? grouped(rounded).slice(0, -3) : grouped(rounded));
  };
  const ageText = ms => {
    const s = Math.max(0, Math.floor(ms / 1000)), two = n => String(n).padStart(2, "0");
    if (s < 10) return s + "." + Math.floor(Math.max(0, ms) % 1000 / 100) + "s";
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m " + two(s % 60) + "s";
    if (s < 86400) return Math.floor(s / 3600) + "h " + two(Math.floor(s / 60) % 60) + "m";
    return Math.floor(s / 86400) + "d " + two(Math.floor(s / 3600) % 24) + "h";
  };
  const words = {fresh: "fresh", stale: "stale", nodata: "no data"};
  let status = JSON.parse($("initial").textContent), received = performance.now();

  const show = () => {
    const state = status && status.state || "nodata";
    $("state").className = "state " + state;
    $("state").textContent = words[state] || state;
    $("price").dataset.price = status && status.price || "";
    $("price").textContent = status && status.price ? money(status.price, status.currency) : "—";
    $("pair").textContent = "BTC/" + (status && status.currency || config.currency);
    const how = status && status.transport === "stream" ? ", streamed" : status && status.transport === "poll" ? ", polled" : "";
    $("source").textContent = status && status.source ? "from " + status.source + (status.symbol ? " (" + status.symbol + ")" : "") + how : "";
    $("error").textContent = status && status.last_error || "";
    for (const [id, key] of [["c1h", "change_1h"], ["c24h", "change_24h"], ["c7d", "change_7d"]]) {
      const value = status && status[key], box = $(id);
      const sign = value == null ? 0 : value.startsWith("-") ? -1 : /[1-9]/.test(value) ? 1 : 0;
      box.className = "change " + (sign > 0 ? "up" : sign < 0 ? "down" : "flat");
      box.querySelector("b").textContent = value == null ? "—" : (sign > 0 ? "+" : "") + value + "%";
    }
    document.title = (status && status.price ? "₿ " + money(status.price, status.currency) + " " + status.currency : "₿ no data") + " · btcpriced";
    tick();
  };
  const tick = () => {
    $("age").textContent = status && status.age != null ? ageText(status.age * 1000 + performance.now() - received) + " old" : "";
  };

  // The chart, scaled in BigInt from the exact closes, as the server draws it.
  let range = $("chart").dataset.range;
  const draw = reply => {
    const scale = 10n ** 18n;
    const units = reply.points.map(p => {
      if (p[1] == null) return null;
      const [whole, fraction = ""] = p[1].split(".");
      return BigInt(whole) * scale + BigInt(fraction.slice(0, 18).padEnd(18, "0"));
    });
    const known = units.filter(u => u !== null);
    let d = "";
    if (known.length && units.length > 1) {
      const low = known.reduce((a, b) => b < a ? b : a), high = known.reduce((a, b) => b > a ? b : a), span = high - low;
      let drawing = false;
      units.forEach((u, i) => {
        if (u === null) { drawing = false; return; }
        const x = BigInt(i) * 1000n / BigInt(units.length - 1);
        const y = span === 0n ? 150n : 10n + (high - u) * 280n / span;
        d += drawing ? "L" + x + " " + y : "M" + x + " " + y + "h0";
        drawing = true;
      });
      const at = u => reply.points[units.indexOf(u)][1];
      // Labelled like the price above it, as the server labels it.
      const code = status && status.currency || reply.currency;
      $("chartnote").textContent = reply.range + " closes: " + money(at(low), code) + " – " + money(at(high), code);
      for (const [name, u] of [["low", low], ["high", high]]) {
        const x = BigInt(units.indexOf(u)) * 1000n / BigInt(units.length - 1);
        const y = span === 0n ? 150n : 10n + (high - u) * 280n / span;
        $(name + "mark").setAttribute("d", "M" + x + " " + y + "h0");
        const percent = (x / 10n) + "." + (x % 10n) + "%";
        $(name).textContent = name + " " + money(at(u), code);
        $(name).style.cssText = (name === "low" ? "bottom" : "top") + ":-18px;left:" + percent + ";transform:translateX(-" + percent + ")";
      }
    } else {
      $("chartnote").textContent = "no history over " + reply.range + " yet";
      for (const name of ["low", "high"]) { $(name + "mark").setAttribute("d", ""); $(name).textContent = ""; }
    }
    const times = reply.points.length > 1 ? [0, (reply.points.length - 1) >> 1, reply.points.length - 1].map(i => reply.points[i][0]) : [];
    const label = time => reply.range === "7d" ? time.slice(5, 10) : time.slice(11, 16);
    $("axis").querySelectorAll("span").forEach((span, i) => { span.textContent = times.length ? label(times[i]) + (i === 2 ? " UTC" : "") : ""; });
    $("chart").setAttribute("d", d);
    for (const a of $("ranges").querySelectorAll("a")) a.className = a.dataset.range === range ? "on" : "";
  };
  const history = () => fetch("/api/v1/history?range=" + range + "&points=" + config.points + and)
    .then(r => r.ok ? r.json() : null).then(reply => { if (reply) draw(reply); }).catch(() => {});
  for (const a of $("ranges").querySelectorAll("a")) {
    a.addEventListener("click", event => { event.preventDefault(); range = a.dataset.range; history(); });
    a.className = a.dataset.range === range ? "on" : "";
  }

  // Each cell carries its column's name, which a narrow screen shows beside it.
  const columns = [...document.querySelectorAll("thead th")].map(th => th.textContent);
  const cell = (text, i) => {
    const td = document.createElement("td"), span = document.createElement("span");
    td.dataset.label = columns[i];
    span.textContent = text;
    td.appendChild(span);
    return td;
  };
  const sources = () => fetch("/api/v1/sources" + ask).then(r => r.ok ? r.json() : null).then(report => {
    if (!report) return;
    const rows = report.sources.map(s => {
      const tr = document.createElement("tr");
      tr.className = s.state;
      for (const [i, text] of [(s.selected ? "* " : "") + s.name, s.state, s.last_price ? grouped(s.last_price) + " " + s.quote_asset : "—",
                          s.latency_ms != null ? s.latency_ms + " ms" : "—", s.route || "—", s.last_error || "—"].entries()) tr.appendChild(cell(text, i));
      return tr;
    });
    $("sources").replaceChildren(...rows);
    $("stream").textContent = report.stream ? "stream: " + report.stream.name + " " + report.stream.state : "";
  }).catch(() => {});

  // Live: a status line per new quote or state change; EventSource reconnects by itself
  // (after the stream's `retry`), so a daemon restart only shows as "reconnecting".
  let lastSources = 0;
  const events = new EventSource("/api/v1/events" + ask);
  events.onopen = () => { stopping = false; $("link").textContent = "live"; };
  let stopping = false;
  events.addEventListener("stopping", () => { stopping = true; $("link").textContent = "daemon stopping"; });
  events.onerror = () => { $("link").textContent = stopping ? "daemon stopped; reconnecting…" : "reconnecting…"; };
  events.onmessage = event => {
    try { status = JSON.parse(event.data); } catch { return; }
    received = performance.now();
    show();
    if (performance.now() - lastSources > 5000) { lastSources = performance.now(); sources(); }
  };
  setInterval(tick, 1000);
  setInterval(history, 60000);
  setInterval(sources, 15000);
  show();
}));
</script>
</body>
</html>

"""#
}
