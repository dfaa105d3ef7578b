#!/usr/bin/env python3
"""Checks of an `arraysim report` page, for tests/integration/report.sh.

  report_check.py html PAGE INJECT_T CLEAR_T
      the page is self-contained (no script, nothing to fetch); each chart
      has an inject marker near INJECT_T drawn at the x its time maps to, a
      degraded period from about INJECT_T to CLEAR_T, and a stall inside it;
      the stall table gives its length. Prints the marker's x in the page.
  report_check.py png SHOT MARKER_X
      the screenshot (PNG, decoded here with zlib) has a column of the
      inject marker's colour at MARKER_X (+-3 px), and pixels of the stall
      and degraded colours: what a reader of the page sees.
  report_check.py labels PAGE
      the label boxes the page emits (x, y and the data-w width of each
      marker and stall label) overlap nowhere within a chart.
  report_check.py probe PAGE OUT
      writes OUT: PAGE with a script that, once Chromium lays it out,
      puts each label's rendered box (getBoundingClientRect) in a
      <pre id="label-boxes">; the page itself stays script-free.
  report_check.py rendered DOM
      the boxes in Chromium's --dump-dom of the probe overlap nowhere
      within a chart, and none is wider than its data-w (the layout's
      estimate holds for the font Chromium used).
  report_check.py replication PAGE
      the page has a Replication section whose lag chart draws a series,
      with the replication events marked on it (paused, lag, resumed, caught up, in that
      order), the paused marker inside the shaded period of the
      replication-link fault.
  report_check.py replication-scenario PAGE INJECT_T CLEAR_T
      the same lag chart and markers (a scenario's pause, not a fault),
      and the fault from INJECT_T to CLEAR_T (a controller pull) shaded
      on it.
  report_check.py curve PAGE CURVE[,CURVE...] [SHOT]
      the page's latency/IOPS chart draws each CURVE (workloads/curve.sh's
      lines), in the order given and each in its own colour: a point per
      held step, ordered as their IOPS and latency, a ring per unlimited
      run, a legend entry; the screenshot has each curve's colour.
"""
import html
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

# tools/report.h: one colour for one thing.
INJECT = (0xFF, 0x00, 0xFF)
STALL = (0x00, 0xE5, 0xFF)
DEGRADED = (0xFF, 0xE4, 0xB5)
CURVE = (0x00, 0xA6, 0x51)  # tools/report_curve.h
BODY_MARGIN = 16  # the page's CSS: body{margin:16px}


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.charts, self.tags, self.stall_rows, self.cells = [], [], [], None
        self.in_stalls = False
        self.marker = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "svg" and a.get("class") == "chart":
            self.charts.append({"attrs": a, "inject": [], "degraded": [],
                                "stall": []})
        elif tag == "g" and "marker" in a.get("class", "").split():
            kind = a["class"].split()[1]
            self.marker = (kind, float(a["data-t"]))
        elif tag == "line" and self.marker:
            kind, t = self.marker
            if kind == "inject":
                self.charts[-1]["inject"].append((t, float(a["x1"])))
            self.marker = None
        elif tag == "rect" and a.get("class") in ("degraded", "stall"):
            self.charts[-1][a["class"]].append(
                (float(a["data-t0"]), float(a["data-t1"])))
        elif tag == "table":
            self.in_stalls = a.get("class") == "stalls"
        elif tag == "tr" and self.in_stalls:
            self.cells = []

    def handle_endtag(self, tag):
        if tag == "tr" and self.in_stalls and self.cells:
            self.stall_rows.append(self.cells)
            self.cells = None

    def handle_data(self, data):
        if self.cells is not None and data.strip():
            self.cells.append(data.strip())


def fail(msg):
    sys.exit("report_check: " + msg)


def check_html(path, inject_t, clear_t):
    text = open(path, encoding="utf-8").read()
    p = Page()
    p.feed(text)
    for tag, a in p.tags:
        if tag in ("script", "link", "img", "iframe", "object", "embed"):
            fail("page has a <%s>" % tag)
        for k, v in a.items():
            if k in ("src", "href") or (v and "url(" in v):
                fail("<%s %s=%r> fetches something" % (tag, k, v))
    if len(p.charts) < 5:
        fail("%d charts, expected at least 5" % len(p.charts))
    x_page = None
    for c in p.charts:
        a = c["attrs"]
        left, width, t1 = (float(a["data-left"]), float(a["data-width"]),
                           float(a["data-t1"]))
        near = [(t, x) for t, x in c["inject"] if abs(t - inject_t) < 0.5]
        if not near:
            fail("no inject marker near %.2f s: %r" % (inject_t, c["inject"]))
        t, x = near[0]
        want = left + t / t1 * width
        if abs(x - want) > 1:
            fail("marker at t=%.3f drawn at x=%.1f, expected %.1f" % (t, x, want))
        x_page = x
        if not any(abs(t0 - inject_t) < 0.5 and abs(t1_ - clear_t) < 0.5
                   for t0, t1_ in c["degraded"]):
            fail("no degraded period %.1f..%.1f s: %r" % (inject_t, clear_t,
                                                        c["degraded"]))
        # Samples are a second apart: a stall starts and ends within one
        # of the fault's edges.
        if not any(t0 > inject_t - 1.1 and t1_ < clear_t + 1.1 and t1_ > t0
                   for t0, t1_ in c["stall"]):
            fail("no stall within %.1f..%.1f s: %r" % (inject_t, clear_t,
                                                     c["stall"]))
    rows = [r for r in p.stall_rows if r[0] != "from"]
    if not rows or rows[0][0] == "none":
        fail("the stall table is empty: %r" % p.stall_rows)
    length = float(rows[0][2].split()[0])
    if not 0.9 <= length <= clear_t - inject_t + 2.1:
        fail("stall length %.1f s for a fault of %.1f s" %
             (length, clear_t - inject_t))
    print("%.0f" % (x_page + BODY_MARGIN))


def png_pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("PNG depth %d type %d interlace %d: not decoded here" %
             (depth, ctype, interlace))
    bpp = 4 if ctype == 6 else 3
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def check_png(path, marker_x):
    w, h, bpp, rows = png_pixels(path)
    count = {INJECT: 0, STALL: 0, DEGRADED: 0}
    column = 0
    for row in rows:
        for x in range(w):
            px = tuple(row[x * bpp:x * bpp + 3])
            if px in count:
                count[px] += 1
                if px == INJECT and abs(x - marker_x) <= 3:
                    column += 1
    print("pixels: inject %d (%d in the marker's column), stall %d, "
          "degraded %d" % (count[INJECT], column, count[STALL],
                           count[DEGRADED]))
    if column < 100:
        fail("no inject marker line at x=%d in the screenshot" % marker_x)
    if count[STALL] < 200:
        fail("no stall shading in the screenshot")
    if count[DEGRADED] < 1000:
        fail("no degraded shading in the screenshot")


class Labels(HTMLParser):
    """Each chart's label boxes as emitted: (x0, y0, x1, y1, text)."""

    def __init__(self):
        super().__init__()
        self.charts, self.box = [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("class") == "chart":
            self.charts.append([])
        elif tag == "text" and a.get("class") in ("label", "stall-label"):
            if "data-w" not in a:
                fail("a label without data-w: %r" % a)
            x, y, w = float(a["x"]), float(a["y"]), float(a["data-w"])
            # 11px text: ascent under 10, descent under 3, about y.
            self.box = [x, y - 10, x + w, y + 3, ""]

    def handle_data(self, data):
        if self.box is not None:
            self.box[4] += data

    def handle_endtag(self, tag):
        if tag == "text" and self.box is not None:
            self.charts[-1].append(tuple(self.box))
            self.box = None


def overlaps(boxes):
    """The pairs of boxes (x0, y0, x1, y1, text) that intersect."""
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                out.append((a, b))
    return out


def check_labels(path):
    p = Labels()
    p.feed(open(path, encoding="utf-8").read())
    n = sum(len(c) for c in p.charts)
    if not n:
        fail("no labels in %s" % path)
    for i, c in enumerate(p.charts):
        bad = overlaps(c)
        if bad:
            fail("chart %d: labels overlap: %r" % (i, bad[:3]))
    print("%d labels in %d charts, none overlapping" % (n, len(p.charts)))


PROBE = """<script>
const out = [];
document.querySelectorAll("svg.chart").forEach((svg, c) => {
  svg.querySelectorAll(".marker text, .stall-label").forEach(t => {
    const b = t.getBoundingClientRect();
    out.push({c: c, text: t.textContent, x0: b.left, y0: b.top,
              x1: b.right, y1: b.bottom, w: +(t.getAttribute("data-w") || 0)});
  });
});
const pre = document.createElement("pre");
pre.id = "label-boxes";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>
"""


def write_probe(path, out):
    text = open(path, encoding="utf-8").read()
    if "</body>" not in text:
        fail("%s has no </body>" % path)
    open(out, "w", encoding="utf-8").write(
        text.replace("</body>", PROBE + "</body>", 1))


def check_rendered(dom_path):
    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    m = re.search(r'<pre id="label-boxes">(.*?)</pre>', dom, re.S)
    if not m:
        fail("no label boxes in the dumped DOM (did the probe run?)")
    boxes = json.loads(html.unescape(m.group(1)))
    if not boxes:
        fail("the probe found no labels")
    charts = {}
    for b in boxes:
        if b["w"] and b["x1"] - b["x0"] > b["w"] + 0.5:
            fail("label %r rendered %.1f px wide, laid out as %.1f" %
                 (b["text"], b["x1"] - b["x0"], b["w"]))
        charts.setdefault(b["c"], []).append(
            (b["x0"], b["y0"], b["x1"], b["y1"], b["text"]))
    for c, bs in charts.items():
        bad = overlaps(bs)
        if bad:
            fail("chart %d: rendered labels overlap: %r" % (c, bad[:3]))
    print("%d rendered labels in %d charts, none overlapping" %
          (len(boxes), len(charts)))


REPL_ORDER = ["repl paused", "repl lag", "repl resumed", "repl caught up"]


def lag_chart(path):
    """The Replication section's one lag chart, which draws a series; its
    replication markers in REPL_ORDER from the first paused one, as
    (t, title) pairs; its shaded fault periods."""
    text = open(path, encoding="utf-8").read()
    if '<h2 class="replication">' not in text:
        fail("no Replication section")
    charts = re.findall(r'<svg class="chart".*?</svg>', text, re.S)
    lag = [c for c in charts if "Replication lag" in c]
    if len(lag) != 1:
        fail("%d lag charts" % len(lag))
    c = lag[0]
    pts = re.search(r'<polyline class="series"[^>]*points="([^"]*)"', c)
    if not pts or len(pts.group(1).split()) < 3:
        fail("the lag chart draws no series")
    marks = [(float(t), html.unescape(title)) for t, title in re.findall(
        r'<g class="marker replication" data-t="([0-9.]+)"><title>([^<]*)', c)]
    known = [(t, next(w for w in REPL_ORDER if title.startswith(w)))
             for t, title in marks if any(title.startswith(w) for w in REPL_ORDER)]
    order = [k for _, k in known]
    if "repl paused" not in order:
        fail("no paused marker: %r" % marks)
    i = order.index("repl paused")
    if order[i:i + 4] != REPL_ORDER:
        fail("replication markers %r, expected %r in order" % (order, REPL_ORDER))
    periods = [(float(a), float(b)) for a, b in re.findall(
        r'<rect class="degraded" data-t0="([0-9.]+)" data-t1="([0-9.]+)"', c)]
    return known[i:i + 4], periods


def check_replication(path):
    seq, periods = lag_chart(path)
    t_paused = seq[0][0]
    if not any(a - 0.5 <= t_paused <= b for a, b in periods):
        fail("paused at %.2f s outside every fault period %r" % (t_paused, periods))
    print("lag chart: paused at %.2f s" % t_paused)


def check_replication_scenario(path, inject_t, clear_t):
    seq, periods = lag_chart(path)
    if not any(abs(a - inject_t) < 0.5 and abs(b - clear_t) < 0.5
               for a, b in periods):
        fail("no shaded period %.1f..%.1f s (the controller pull): %r" %
             (inject_t, clear_t, periods))
    print("lag chart: %s; controller pull %.2f..%.2f s shaded" %
          (", ".join("%s %.2f s" % (k, t) for t, k in seq), inject_t, clear_t))


def curve_points(polyline):
    return [tuple(map(float, p.split(","))) for p in polyline.split()]


def check_one_curve(steps, pts):
    """PTS draw the held steps of STEPS: one each, left to right as their
    IOPS, higher on the page for a higher latency."""
    held = [s for s in steps if s["pct"] > 0]
    if len(pts) != len(held):
        fail("%d points for %d held steps" % (len(pts), len(held)))
    for (xa, ya), (xb, yb), a, b in zip(pts, pts[1:], held, held[1:]):
        if (xb - xa) * (b["iops"] - a["iops"]) < 0:
            fail("x order: %r against IOPS %r" % (pts, [s["iops"] for s in held]))
        if (yb - ya) * (b["lat_mean_us"] - a["lat_mean_us"]) > 0:
            fail("y order: %r against latency %r" % (pts, [s["lat_mean_us"] for s in held]))


def check_curve(page, curves, png):
    """The curve section of PAGE draws each of CURVES (curve.sh's lines,
    files in --curve's order) as a polyline of its own colour with a
    legend entry naming the file, the maximum of each as a ring; and,
    when PNG is given, Chromium painted every curve's colour."""
    html_text = open(page).read()
    lines = re.findall(r'<polyline class="curve"[^>]*stroke="#([0-9a-fA-F]{6})"'
                       r'[^>]*points="([^"]*)"', html_text)
    if len(lines) != len(curves):
        fail("%d curve polylines for %d curves in %s" % (len(lines), len(curves), page))
    rings = 0
    colours = []
    for path, (colour, points) in zip(curves, lines):
        steps = [json.loads(l) for l in open(path) if l.strip()]
        check_one_curve(steps, curve_points(points))
        rings += sum(1 for s in steps if s["pct"] == 0)
        label = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]  # report_curve.c
        if html.escape(label) not in html_text:
            fail("no legend entry %r" % label)
        colours.append(tuple(bytes.fromhex(colour)))
    if colours[0] != CURVE or len(set(colours)) != len(colours):
        fail("curve colours %r: the first %r, each its own" % (colours, CURVE))
    if html_text.count('class="step max"') != rings:
        fail("not one ring per unlimited run")
    if not png:
        print("%d curves" % len(curves))
        return
    w, h, bpp, rows = png_pixels(png)
    for c in colours:
        n = sum(1 for row in rows for x in range(w) if tuple(row[x * bpp:x * bpp + 3]) == c)
        if n < 50:
            fail("%d pixels of curve colour %r in %s" % (n, c, png))
        print("curve %02x%02x%02x: %d pixels rendered" % (c + (n,)))

if __name__ == "__main__":
    if sys.argv[1] == "html":
        check_html(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    elif sys.argv[1] == "png":
        check_png(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "labels":
        check_labels(sys.argv[2])
    elif sys.argv[1] == "probe":
        write_probe(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "replication":
        check_replication(sys.argv[2])
    elif sys.argv[1] == "replication-scenario":
        check_replication_scenario(sys.argv[2], float(sys.argv[3]),
                                   float(sys.argv[4]))
    elif sys.argv[1] == "curve":
        check_curve(sys.argv[2], sys.argv[3].split(","),
                    sys.argv[4] if len(sys.argv) > 4 else None)
    elif sys.argv[1] == "rendered":
        check_rendered(sys.argv[2])
    else:
        fail("usage: see the docstring")
