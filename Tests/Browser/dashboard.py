#!/usr/bin/python3
"""The dashboard in headless Chromium (chromium-driver through Selenium), as a node runner opens
it: no data, the fake exchange's exact price, a new price without a reload, stale, a venue's
<script> shown as text, a daemon restart, a phone's 390 px and a desktop's 1280 px (nothing cut
or overflowing sideways, the chart's low, high and time axis shown), and no request to any host
but the daemon. A
screenshot of each state goes to --artefacts. Run by scripts/browser-test, which starts the fake
exchange and writes the daemon's start command; each check prints ok or FAIL, and the exit
status is the number of failures."""
import argparse
import json
import os
import signal
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

parser = argparse.ArgumentParser()
parser.add_argument("--url", required=True)
parser.add_argument("--fake", required=True)
parser.add_argument("--start", required=True)
parser.add_argument("--pidfile", required=True)
parser.add_argument("--artefacts", required=True)
args = parser.parse_args()

failures = 0
LIMIT = 30  # seconds: only bounds a broken run; timings are reported, not asserted


def check(what, ok, seen=""):
    global failures
    print(("ok   - " if ok else "FAIL - ") + what + (f" ({seen})" if seen else ""), flush=True)
    if not ok:
        failures += 1


def control(market, command):
    request = urllib.request.Request(f"{args.fake}/_control/{market}", data=command.encode(), method="POST")
    urllib.request.urlopen(request, timeout=5).read()


def eventually(condition, limit=LIMIT):
    """Polls until `condition` holds; returns how long it took, or None after the limit."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        try:
            if condition():
                return time.monotonic() - started
        except Exception:
            pass
        time.sleep(0.05)
    return None


def start_daemon():
    os.system(args.start)
    eventually(lambda: urllib.request.urlopen(args.url + "/api/v1/status", timeout=2).status == 200)


def stop_daemon():
    with open(args.pidfile) as file:
        pid = int(file.read())
    os.kill(pid, signal.SIGTERM)
    eventually(lambda: not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z")


def text(element_id):
    return driver.find_element("id", element_id).text


def shot(name):
    path = os.path.join(args.artefacts, name + ".png")
    driver.save_screenshot(path)
    print(f"     screenshot: {path}", flush=True)


options = Options()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1100,900",
             "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]:
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
requested = []


def collect_requests():
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            requested.append(message["params"]["request"]["url"])


try:
    # No data: every venue fails from the start and nothing was saved.
    control("binance", "status 503")
    start_daemon()
    driver.get(args.url + "/")
    check("with no quote the page says no data", eventually(lambda: text("state") == "no data") is not None, text("state"))
    check("and shows no price", text("price") == "—", text("price"))
    shot("nodata")
    driver.execute_script("window.sameDocument = true")

    # The fake's exact price, live: the page was loaded before any price existed.
    control("binance", "price 114459.80000000")
    took = eventually(lambda: text("price") == "114,459.80")
    check("the fake exchange's price appears without a reload", took is not None, text("price"))
    check("exactly: data-price is the decimal the daemon serves",
          driver.find_element("id", "price").get_attribute("data-price") == "114459.8", driver.find_element("id", "price").get_attribute("data-price"))
    check("fresh, in words", eventually(lambda: text("state") == "fresh") is not None, text("state"))
    check("with its currency and source", text("pair") == "BTC/USDT" and text("source").startswith("from binance"), f"{text('pair')} {text('source')}")
    check("its age ticks", eventually(lambda: text("age").endswith(" old")) is not None, text("age"))
    paint = driver.execute_script("const p = performance.getEntriesByName('first-contentful-paint')[0]; return p ? p.startTime : null")
    print(f"     first contentful paint: {paint} ms", flush=True)
    shot("fresh")

    # A new price: shown without a reload, and how long it took is reported.
    control("binance", "price 115001.25")
    moved = time.monotonic()
    took = eventually(lambda: text("price") == "115,001.25")
    check("a new price is shown live", took is not None, text("price"))
    print(f"     the page showed the new price {time.monotonic() - moved:.2f} s after the fake moved it (the daemon asks every 1 s)", flush=True)
    check("in the same document (no reload)", driver.execute_script("return window.sameDocument === true"))

    # Stale: the venue stops answering; STALE_AFTER is 3 s.
    control("binance", "status 503")
    check("stale when the venue stops answering", eventually(lambda: text("state") == "stale") is not None, text("state"))
    check("the price is still shown, marked stale", text("price") == "115,001.25", text("price"))
    shot("stale")

    # A venue's error with markup in it is text, in the live page and in the server's render.
    hostile = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">'
    control("binance", "body " + json.dumps({"code": -1, "msg": hostile}))
    check("the venue's error reaches the page", eventually(lambda: "<script>window.pwned=1</script>" in text("error")) is not None, text("error"))
    driver.get(args.url + "/")
    check("rendered by the server, it is text too", "<script>window.pwned=1</script>" in text("error"), text("error"))
    check("and in the sources table", eventually(lambda: "<img src=x" in text("sources")) is not None, text("sources")[:200])
    check("no script of the venue's ran", driver.execute_script("return window.pwned === undefined"))
    shot("hostile-error")

    # A daemon restart: the page reconnects by itself and goes on updating.
    control("binance", "price 116000")
    eventually(lambda: text("price") == "116,000.00")
    driver.execute_script("window.sameDocument = true")
    stop_daemon()
    # The stream's last event says the daemon stops, so the page tells a stop from a failed network.
    check("a stopped daemon shows as stopped, and reconnecting", eventually(lambda: text("link") == "daemon stopped; reconnecting…") is not None, text("link"))
    control("binance", "price 116500.5")
    start_daemon()
    check("the page reconnects after the restart", eventually(lambda: text("link") == "live") is not None, text("link"))
    check("and shows the price the restarted daemon serves", eventually(lambda: text("price") == "116,500.50") is not None, text("price"))
    check("still without a reload", driver.execute_script("return window.sameDocument === true"))

    # A phone (390 px, as an iPhone 13 to 15 is wide) and a desktop: nothing overflows sideways,
    # no cell, chart label or the price is cut, and the chart's low, high and time axis show.
    for width, height, mobile in [(390, 844, True), (1280, 900, False)]:
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 3 if mobile else 1, "mobile": mobile})
        driver.get(args.url + "/")
        eventually(lambda: text("price") == "116,500.50" and driver.find_element("id", "lowmark").get_attribute("d") != "")
        over = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        check(f"at {width} px nothing overflows sideways", over <= 0, f"{over} px wider than the screen")
        cut = driver.execute_script("""return [...document.querySelectorAll('td, .extreme, .axis span, h1, .ranges, .meta span')]
            .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < -0.5 || r.right > document.documentElement.clientWidth + 0.5); })
            .map(e => e.textContent.slice(0, 40))""")
        check(f"  ... no cell, chart label or the price is cut", not cut, " | ".join(cut))
        check(f"  ... the route column shows", eventually(lambda: any(td.text.strip() and td.is_displayed()
                                                                  for td in driver.find_elements("css selector", 'td[data-label="route"]'))) is not None)
        marks = [driver.find_element("id", name).get_attribute("d") for name in ("lowmark", "highmark")]
        labels = [text("low"), text("high")]
        check(f"  ... the chart marks its low and high", all(marks) and labels[0].startswith("low ") and labels[1].startswith("high "), f"{marks} {labels}")
        axis = [span.text for span in driver.find_elements("css selector", "#axis span")]
        check(f"  ... under a time axis", len(axis) == 3 and axis[2].endswith(" UTC") and all(axis), f"{axis}")
        shot(f"width-{width}")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # The chart switch asks /api/v1/history and redraws.
    driver.find_element("css selector", 'a[data-range="7d"]').click()
    check("the 7d switch redraws from /api/v1/history",
          eventually(lambda: driver.find_element("css selector", 'a[data-range="7d"]').get_attribute("class") == "on") is not None)
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    shot("dark")

    # Several currencies (USD and EUR here): the switcher opens the euro's page, which its own
    # events keep live, and leads back.
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    driver.find_element("css selector", 'nav.currencies a[href="/?currency=EUR"]').click()
    check("the switcher opens the euro's page", eventually(lambda: text("pair") == "BTC/EUR") is not None, text("pair"))
    check("  ... marked as the one shown", driver.find_element("css selector", "nav.currencies a.on").text == "EUR")
    control("binance", "price 117000")
    check("  ... kept live by the euro's events", eventually(lambda: text("price").endswith("117,000.00")) is not None, text("price"))
    check("  ... its chart links name the euro", driver.find_element("css selector", 'a[data-range="1h"]').get_attribute("href").endswith("/?currency=EUR&range=1h"))
    shot("euro")
    driver.find_element("css selector", 'nav.currencies a[href="/"]').click()
    check("and the switcher leads back to the primary", eventually(lambda: text("pair") == "BTC/USDT") is not None, text("pair"))

    collect_requests()
    foreign = [url for url in requested if not (url.startswith(args.url + "/") or url.startswith("data:"))]
    check(f"the page asked no host but the daemon ({len(requested)} requests)", requested and not foreign, ", ".join(foreign[:5]))
    size = len(urllib.request.urlopen(args.url + "/", timeout=5).read())
    check("the page is under 64 KiB", size < 64 * 1024, f"{size} bytes")
finally:
    driver.quit()
print(f"browser: {failures} failed", flush=True)
raise SystemExit(min(failures, 100))
