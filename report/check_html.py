#!/usr/bin/env python3
"""report/check_html.py - open the report's web page in headless Chromium
and check it as a reader's browser sees it.

  report/check_html.py [--screenshot FILE] [--chromium PATH] report/html/index.html

Checks, each printed as an `ok - ` or `not ok - ` line (tests/run.sh counts
them): the page loads; every image loads (complete, with pixels); every
link leads somewhere (a file that exists, or an id on the page); nothing is
fetched from a network (the page is self-contained); no console errors or
uncaught exceptions. With --screenshot it keeps a PNG of the first screen
(1280 x 900). Without Chromium it prints one `skip - ` line naming the
Debian package and exits 0.

Chromium is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages on file descriptors 3 and 4), so
no network port, websocket library or Node is needed; it runs headless as
root with --no-sandbox, a fresh profile in a temporary folder, and no
background networking, component updates or sync. Exit status: 0 when
every check passed, 1 otherwise, 2 on bad usage."""
import argparse
import base64
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio",
         "--remote-debugging-pipe"]
TIMEOUT_S = 60
WIDTH, HEIGHT = 1280, 900

# Run in the page once it has loaded: its images and links, as data.
PROBE = """JSON.stringify({
  images: Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth]),
  links: Array.from(document.querySelectorAll('a[href]')).map(a => [a.getAttribute('href'), a.href]),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
  title: document.title
})"""


class Browser:
    """One headless Chromium, spoken to over the debugging pipe."""

    def __init__(self, exe, profile):
        to_chrome, self._w = os.pipe()
        self._r, from_chrome = os.pipe()
        def fds():
            os.dup2(to_chrome, 3)
            os.dup2(from_chrome, 4)
        self.proc = subprocess.Popen([exe, *FLAGS, f"--user-data-dir={profile}", "about:blank"], pass_fds=(3, 4),
                                     preexec_fn=fds, start_new_session=True, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome)
        os.close(from_chrome)
        self.buf, self.next_id, self.events = b"", 0, []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._r], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed the pipe (it exited)")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, deadline=None):
        want = self.send(method, params, session)
        deadline = deadline or time.monotonic() + TIMEOUT_S
        while True:
            msg = self.receive(deadline)
            if msg.get("id") == want:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error'].get('message')}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method, deadline):
        for i, msg in enumerate(self.events):
            if msg.get("method") == method:
                return msg
        while True:
            msg = self.receive(deadline)
            self.events.append(msg)
            if msg.get("method") == method:
                return msg

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)


def problems_in(events):
    """Console errors, exceptions, failed and network loads, as text."""
    out = {"console": [], "failed": [], "network": []}
    for m in events:
        kind, p = m.get("method"), m.get("params", {})
        if kind == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out["console"].append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif kind == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out["console"].append(d.get("exception", {}).get("description") or d.get("text", "exception"))
        elif kind == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            out["console"].append(f"{e.get('text', '')} {e.get('url', '')}".strip())
        elif kind == "Network.loadingFailed":
            out["failed"].append(f"{p.get('errorText')} ({p.get('type')})")
        elif kind == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if not url.startswith(("file:", "data:", "about:")):
                out["network"].append(url)
    return out


def broken_links(links, ids, page):
    bad = []
    for raw, resolved in links:
        url = urllib.parse.urlsplit(resolved)
        if url.scheme == "file":
            path = urllib.parse.unquote(url.path)
            if path == page:
                if url.fragment and url.fragment not in ids:
                    bad.append(f"{raw} (no id '{url.fragment}' on the page)")
            elif not os.path.exists(path):
                bad.append(f"{raw} (no such file)")
        else:
            bad.append(f"{raw} (leaves the page's folder: {url.scheme})")
    return bad


def check(page, exe, screenshot):
    results = []
    def report(ok, what, detail=""):
        results.append(ok)
        print(f"{'ok' if ok else 'not ok'} - report html: {what}{'' if ok or not detail else ': ' + detail}")
    profile = tempfile.mkdtemp(prefix="ddlab-chromium.")
    browser = Browser(exe, profile)
    try:
        deadline = time.monotonic() + TIMEOUT_S
        target = browser.call("Target.createTarget", {"url": "about:blank"}, deadline=deadline)["targetId"]
        s = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True}, deadline=deadline)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            browser.call(domain + ".enable", session=s, deadline=deadline)
        browser.call("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1,
                                                             "mobile": False}, session=s, deadline=deadline)
        nav = browser.call("Page.navigate", {"url": "file://" + urllib.parse.quote(page)}, session=s,
                           deadline=deadline)
        report("errorText" not in nav, f"Chromium opens {page}", nav.get("errorText", ""))
        browser.wait_for("Page.loadEventFired", deadline)
        probe = browser.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=s,
                             deadline=deadline)
        data = json.loads(probe["result"]["value"])
        bad_images = [src for src, complete, width in data["images"] if not complete or width == 0]
        report(data["images"] and not bad_images, f"every image loads ({len(data['images'])} images)",
               ", ".join(bad_images[:5]) or "no images")
        bad = broken_links(data["links"], set(data["ids"]), page)
        report(not bad, f"no link is broken ({len(data['links'])} links)", "; ".join(bad[:5]))
        if screenshot:
            shot = browser.call("Page.captureScreenshot", {"format": "png"}, session=s, deadline=deadline)
            os.makedirs(os.path.dirname(os.path.abspath(screenshot)), exist_ok=True)
            with open(screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            report(os.path.getsize(screenshot) > 0, f"screenshot of the first screen kept in {screenshot}")
        seen = problems_in(browser.events)
        report(not seen["console"], "no console errors or exceptions", "; ".join(seen["console"][:5]))
        report(not seen["failed"], "no failed loads", "; ".join(seen["failed"][:5]))
        report(not seen["network"], "nothing fetched from a network (self-contained)", "; ".join(seen["network"][:5]))
    except (TimeoutError, EOFError, RuntimeError, OSError, KeyError, ValueError) as e:
        report(False, "Chromium checked the page", str(e))
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)
    return all(results)


def main(argv):
    p = argparse.ArgumentParser(prog="report/check_html.py", description=__doc__.split("\n\n")[0])
    p.add_argument("page", help="the page to open (report/html/index.html)")
    p.add_argument("--screenshot", help="keep a PNG of the first screen here")
    p.add_argument("--chromium", default=os.environ.get("CHROMIUM") or shutil.which("chromium") or "",
                   help="the browser (default: chromium on PATH)")
    a = p.parse_args(argv)
    if not a.chromium:
        print("skip - report html: chromium not installed: sudo apt-get install -y chromium (or `make deps`)")
        return 0
    page = os.path.abspath(a.page)
    if not os.path.isfile(page):
        print(f"not ok - report html: {a.page} does not exist (run `make report`)")
        return 1
    return 0 if check(page, a.chromium, a.screenshot) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
