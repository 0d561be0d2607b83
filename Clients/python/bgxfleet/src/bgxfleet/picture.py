"""Render a fleet report's arrival chart as a PNG with headless Chromium.

    bgx-fleet-picture REPORT.html OUT.png [--app BUNDLE] [--chromium PATH]

Takes the arrivals SVG that `bgx fleet report` drew (the first, or the one
for --app) with the report's own style, and has Chromium screenshot exactly
that chart: docs/fleets.md's pictures are made this way.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile


def chart(html, app=None):
    """The report's <style> and the arrivals <svg> (for app, or the first), and its size."""
    style = "".join(re.findall(r"<style>.*?</style>", html, re.S))
    label = re.escape(f"arrivals of {app}") if app else r"arrivals of [^\"]+"
    found = re.search(r'<svg[^>]*? width="(\d+)" height="(\d+)"[^>]*aria-label="' + label + r'".*?</svg>', html, re.S)
    if not found:
        raise SystemExit("error: no arrivals chart" + (f" for {app}" if app else "") + " in the report")
    return style, found.group(0), int(found.group(1)), int(found.group(2))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bgx-fleet-picture", description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("png")
    parser.add_argument("--app")
    parser.add_argument("--chromium", default=shutil.which("chromium") or shutil.which("chromium-browser")
                        or shutil.which("google-chrome"))
    args = parser.parse_args(argv)
    if not args.chromium:
        raise SystemExit("error: no Chromium found: install it or pass --chromium PATH")
    with open(args.report, encoding="utf-8") as f:
        style, svg, width, height = chart(f.read(), args.app)
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "chart.html")
        with open(page, "w", encoding="utf-8") as f:
            f.write(f"<!doctype html><meta charset=utf-8>{style}"
                    f"<style>html,body{{margin:0;background:#fff}}</style>{svg}")
        done = subprocess.run([args.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               f"--user-data-dir={os.path.join(tmp, 'profile')}",
                               f"--window-size={width},{height}", f"--screenshot={os.path.abspath(args.png)}",
                               "file://" + page], capture_output=True, text=True)
        if done.returncode != 0 or not os.path.exists(args.png):
            raise SystemExit(f"error: chromium failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    print(f"bgx-fleet-picture: {width}x{height} → {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
